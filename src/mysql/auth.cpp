#include "mysql/auth.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <array>
#include <cstdint>
#include <memory>

#include "common/error.h"

namespace rowbridge::mysql {
namespace {

template <size_t N>
using Digest = std::array<unsigned char, N>;

// Digest of the concatenation of up to three parts.
template <size_t N>
Digest<N> Hash(const EVP_MD* md, std::string_view a, std::string_view b = {},
               std::string_view c = {}) {
  Digest<N> out;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned int len = 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), a.data(), a.size()) != 1 ||
      EVP_DigestUpdate(ctx.get(), b.data(), b.size()) != 1 ||
      EVP_DigestUpdate(ctx.get(), c.data(), c.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), out.data(), &len) != 1 || len != N) {
    Fail(ErrorCode::kInternal, "OpenSSL digest failed");
  }
  return out;
}

Digest<20> Sha1(std::string_view a, std::string_view b = {}) {
  return Hash<20>(EVP_sha1(), a, b);
}
Digest<32> Sha256(std::string_view a, std::string_view b = {}) {
  return Hash<32>(EVP_sha256(), a, b);
}
Digest<64> Sha512(std::string_view a, std::string_view b = {}, std::string_view c = {}) {
  return Hash<64>(EVP_sha512(), a, b, c);
}

template <size_t N>
std::string_view View(const Digest<N>& d) {
  return std::string_view(reinterpret_cast<const char*>(d.data()), N);
}

// --- Ed25519 over BIGNUM ----------------------------------------------------------------------
// MariaDB's key is SHA-512 of the whole password rather than of a 32-byte seed, which OpenSSL's
// Ed25519 cannot take, so the group arithmetic is done here. Speed is irrelevant (one signature
// per login); BIGNUM keeps the code short and obviously correct.

struct BnFree {
  void operator()(BIGNUM* b) const { BN_free(b); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;

Bn NewBn() {
  Bn b(BN_new());
  if (!b) Fail(ErrorCode::kInternal, "BN_new failed");
  return b;
}

struct Point {
  Bn x, y, z, t;  // extended coordinates: x = X/Z, y = Y/Z, x*y = T/Z
};

class Ed25519 {
 public:
  Ed25519() : ctx_(BN_CTX_new()) {
    if (ctx_ == nullptr) Fail(ErrorCode::kInternal, "BN_CTX_new failed");
    p_ = NewBn();
    BN_set_bit(p_.get(), 255);
    BN_sub_word(p_.get(), 19);
    l_ = NewBn();
    BIGNUM* raw = l_.get();
    BN_dec2bn(&raw, "27742317777372353535851937790883648493");
    BN_add(l_.get(), l_.get(), Power2(252).get());  // the group order 2^252 + 2774...8493
    // d = -121665 / 121666 mod p; the multiplication uses 2d.
    Bn num = Word(121665), den = Word(121666);
    BN_sub(num.get(), p_.get(), num.get());
    Bn inv = NewBn();
    BN_mod_inverse(inv.get(), den.get(), p_.get(), ctx_);
    d2_ = NewBn();
    BN_mod_mul(d2_.get(), num.get(), inv.get(), p_.get(), ctx_);
    BN_mod_lshift1(d2_.get(), d2_.get(), p_.get(), ctx_);
    // Base point: y = 4/5, x the even root.
    base_ = Identity();
    raw = base_.x.get();
    BN_dec2bn(&raw,
              "15112221349535400772501151409588531511454012693041857206046113283949847762202");
    Bn four = Word(4), five = Word(5);
    BN_mod_inverse(inv.get(), five.get(), p_.get(), ctx_);
    BN_mod_mul(base_.y.get(), four.get(), inv.get(), p_.get(), ctx_);
    BN_mod_mul(base_.t.get(), base_.x.get(), base_.y.get(), p_.get(), ctx_);
  }
  ~Ed25519() { BN_CTX_free(ctx_); }
  Ed25519(const Ed25519&) = delete;
  Ed25519& operator=(const Ed25519&) = delete;

  const BIGNUM* order() const { return l_.get(); }
  BN_CTX* ctx() { return ctx_; }

  // scalar * B, encoded as 32 bytes (y little-endian, sign of x in the top bit).
  std::array<unsigned char, 32> MultiplyBase(const BIGNUM* scalar) {
    Point r = Identity();
    for (int bit = BN_num_bits(scalar) - 1; bit >= 0; --bit) {
      r = Add(r, r);
      if (BN_is_bit_set(scalar, bit)) r = Add(r, base_);
    }
    return Encode(r);
  }

 private:
  Bn Word(unsigned long w) {
    Bn b = NewBn();
    BN_set_word(b.get(), w);
    return b;
  }
  Bn Power2(int n) {
    Bn b = NewBn();
    BN_set_bit(b.get(), n);
    return b;
  }
  Point Identity() {
    Point q{NewBn(), NewBn(), NewBn(), NewBn()};
    BN_one(q.y.get());
    BN_one(q.z.get());
    return q;
  }
  void Mul(BIGNUM* r, const BIGNUM* a, const BIGNUM* b) { BN_mod_mul(r, a, b, p_.get(), ctx_); }
  void AddMod(BIGNUM* r, const BIGNUM* a, const BIGNUM* b) { BN_mod_add(r, a, b, p_.get(), ctx_); }
  void SubMod(BIGNUM* r, const BIGNUM* a, const BIGNUM* b) { BN_mod_sub(r, a, b, p_.get(), ctx_); }

  // Unified addition for twisted Edwards curves with a = -1 (complete on Ed25519, so it also
  // doubles and handles the identity).
  Point Add(const Point& p, const Point& q) {
    Bn a = NewBn(), b = NewBn(), c = NewBn(), d = NewBn(), t1 = NewBn(), t2 = NewBn();
    SubMod(t1.get(), p.y.get(), p.x.get());
    SubMod(t2.get(), q.y.get(), q.x.get());
    Mul(a.get(), t1.get(), t2.get());
    AddMod(t1.get(), p.y.get(), p.x.get());
    AddMod(t2.get(), q.y.get(), q.x.get());
    Mul(b.get(), t1.get(), t2.get());
    Mul(c.get(), p.t.get(), q.t.get());
    Mul(c.get(), c.get(), d2_.get());
    Mul(d.get(), p.z.get(), q.z.get());
    AddMod(d.get(), d.get(), d.get());
    Bn e = NewBn(), f = NewBn(), g = NewBn(), h = NewBn();
    SubMod(e.get(), b.get(), a.get());
    SubMod(f.get(), d.get(), c.get());
    AddMod(g.get(), d.get(), c.get());
    AddMod(h.get(), b.get(), a.get());
    Point r{NewBn(), NewBn(), NewBn(), NewBn()};
    Mul(r.x.get(), e.get(), f.get());
    Mul(r.y.get(), g.get(), h.get());
    Mul(r.t.get(), e.get(), h.get());
    Mul(r.z.get(), f.get(), g.get());
    return r;
  }

  std::array<unsigned char, 32> Encode(const Point& q) {
    Bn zinv = NewBn(), x = NewBn(), y = NewBn();
    BN_mod_inverse(zinv.get(), q.z.get(), p_.get(), ctx_);
    Mul(x.get(), q.x.get(), zinv.get());
    Mul(y.get(), q.y.get(), zinv.get());
    std::array<unsigned char, 32> out{};
    BN_bn2lebinpad(y.get(), out.data(), 32);
    if (BN_is_odd(x.get())) out[31] |= 0x80;
    return out;
  }

  BN_CTX* ctx_;
  Bn p_, l_, d2_;
  Point base_;
};

}  // namespace

std::string NativePasswordProof(std::string_view password, std::string_view nonce) {
  if (password.empty()) return "";
  auto stage1 = Sha1(password);
  auto stage2 = Sha1(View(stage1));
  auto mix = Sha1(nonce.substr(0, 20), View(stage2));
  std::string out(20, '\0');
  for (size_t i = 0; i < 20; ++i) out[i] = static_cast<char>(stage1[i] ^ mix[i]);
  return out;
}

std::string CachingSha2Proof(std::string_view password, std::string_view nonce) {
  if (password.empty()) return "";
  auto d1 = Sha256(password);
  auto d2 = Sha256(View(d1));
  auto d3 = Sha256(View(d2), nonce.substr(0, 20));
  std::string out(32, '\0');
  for (size_t i = 0; i < 32; ++i) out[i] = static_cast<char>(d1[i] ^ d3[i]);
  return out;
}

std::string RsaEncryptPassword(std::string_view password, std::string_view nonce,
                               std::string_view public_key_pem) {
  if (nonce.empty()) Fail(ErrorCode::kProtocol, "RSA password encryption needs a server nonce");
  std::string plain(password);
  plain.push_back('\0');
  for (size_t i = 0; i < plain.size(); ++i) plain[i] ^= nonce[i % nonce.size()];

  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(public_key_pem.data(), static_cast<int>(public_key_pem.size())), BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr) : nullptr, EVP_PKEY_free);
  if (!key) {
    ERR_clear_error();
    Fail(ErrorCode::kProtocol, "server sent an unreadable RSA public key ({} bytes)",
         public_key_pem.size());
  }
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(
      EVP_PKEY_CTX_new(key.get(), nullptr), EVP_PKEY_CTX_free);
  size_t out_len = 0;
  if (!ctx || EVP_PKEY_encrypt_init(ctx.get()) != 1 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_OAEP_PADDING) != 1 ||
      EVP_PKEY_encrypt(ctx.get(), nullptr, &out_len,
                       reinterpret_cast<const unsigned char*>(plain.data()), plain.size()) != 1) {
    ERR_clear_error();
    Fail(ErrorCode::kProtocol, "cannot RSA-encrypt the password with the server's public key");
  }
  std::string out(out_len, '\0');
  if (EVP_PKEY_encrypt(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &out_len,
                       reinterpret_cast<const unsigned char*>(plain.data()), plain.size()) != 1) {
    ERR_clear_error();
    Fail(ErrorCode::kProtocol,
         "cannot RSA-encrypt a {} byte password with the server's public key (too long?)",
         password.size());
  }
  out.resize(out_len);
  OPENSSL_cleanse(plain.data(), plain.size());
  return out;
}

std::string Ed25519Signature(std::string_view password, std::string_view message) {
  Ed25519 curve;
  auto az = Sha512(password);
  az[0] &= 248;
  az[31] &= 63;
  az[31] |= 64;
  Bn a = NewBn();
  BN_lebin2bn(az.data(), 32, a.get());
  auto public_key = curve.MultiplyBase(a.get());

  auto nonce_hash =
      Sha512(std::string_view(reinterpret_cast<const char*>(az.data() + 32), 32), message);
  Bn r = NewBn();
  BN_lebin2bn(nonce_hash.data(), 64, r.get());
  BN_mod(r.get(), r.get(), curve.order(), curve.ctx());
  auto big_r = curve.MultiplyBase(r.get());

  auto hram_hash = Sha512(View(big_r), View(public_key), message);
  Bn k = NewBn();
  BN_lebin2bn(hram_hash.data(), 64, k.get());
  BN_mod(k.get(), k.get(), curve.order(), curve.ctx());

  Bn s = NewBn();
  BN_mod_mul(s.get(), k.get(), a.get(), curve.order(), curve.ctx());
  BN_mod_add(s.get(), s.get(), r.get(), curve.order(), curve.ctx());

  std::string out(64, '\0');
  std::copy(big_r.begin(), big_r.end(), out.begin());
  BN_bn2lebinpad(s.get(), reinterpret_cast<unsigned char*>(out.data() + 32), 32);
  OPENSSL_cleanse(az.data(), az.size());
  BN_clear(a.get());
  BN_clear(r.get());
  return out;
}

}  // namespace rowbridge::mysql
