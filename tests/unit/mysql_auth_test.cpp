#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <memory>
#include <string>

#include "common/error.h"
#include "mysql/auth.h"
#include "support/bytes.h"

namespace rowbridge::mysql {
namespace {

using ::rowbridge::testing::Hex;

// Expected values computed independently with Python's hashlib.
TEST(MysqlAuth, NativePasswordProof) {
  EXPECT_EQ(Hex(NativePasswordProof("secret", "abcdefghijklmnopqrst")),
            "8817c50fa779daef010ee7577825b0847df9842e");
  EXPECT_EQ(NativePasswordProof("", "abcdefghijklmnopqrst"), "");
  // Only the first 20 nonce bytes count (servers send a trailing NUL sometimes).
  EXPECT_EQ(NativePasswordProof("secret", std::string("abcdefghijklmnopqrst\0", 21)),
            NativePasswordProof("secret", "abcdefghijklmnopqrst"));
}

TEST(MysqlAuth, CachingSha2Proof) {
  EXPECT_EQ(Hex(CachingSha2Proof("secret", "abcdefghijklmnopqrst")),
            "c76e2898612a4cf042c77fa8c4702c4c64c0c2c557c53c4d75595aaa6abae809");
  EXPECT_EQ(CachingSha2Proof("", "abcdefghijklmnopqrst"), "");
}

TEST(MysqlAuth, Ed25519MatchesOpenSslForA32BytePassword) {
  // MariaDB hashes the whole password; for exactly 32 bytes that is standard Ed25519 with the
  // password as seed, which OpenSSL can check.
  const std::string password = "0123456789abcdef0123456789ABCDEF";
  const std::string message = "a 32 byte scramble from a server";
  std::string ours = Ed25519Signature(password, message);
  ASSERT_EQ(ours.size(), 64u);

  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr,
                                   reinterpret_cast<const unsigned char*>(password.data()), 32),
      EVP_PKEY_free);
  ASSERT_TRUE(key);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  ASSERT_EQ(EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()), 1);
  unsigned char sig[64];
  size_t sig_len = sizeof sig;
  ASSERT_EQ(EVP_DigestSign(ctx.get(), sig, &sig_len,
                           reinterpret_cast<const unsigned char*>(message.data()), message.size()),
            1);
  EXPECT_EQ(Hex(ours), Hex(std::string_view(reinterpret_cast<char*>(sig), sig_len)));
}

TEST(MysqlAuth, Ed25519LongPasswordsSignDeterministically) {
  std::string a = Ed25519Signature(std::string(100, 'p'), "nonce");
  EXPECT_EQ(a, Ed25519Signature(std::string(100, 'p'), "nonce"));
  EXPECT_NE(a, Ed25519Signature(std::string(100, 'p'), "other"));
  EXPECT_NE(a, Ed25519Signature(std::string(99, 'p'), "nonce"));
}

TEST(MysqlAuth, RsaEncryptedPasswordDecryptsToPasswordXorNonce) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_RSA_gen(2048), EVP_PKEY_free);
  ASSERT_TRUE(key);
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PUBKEY(bio.get(), key.get());
  char* pem_data = nullptr;
  long pem_len = BIO_get_mem_data(bio.get(), &pem_data);
  const std::string nonce = "abcdefghijklmnopqrst";
  std::string encrypted =
      RsaEncryptPassword("secret", nonce, std::string_view(pem_data, static_cast<size_t>(pem_len)));
  ASSERT_EQ(encrypted.size(), 256u);

  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(
      EVP_PKEY_CTX_new(key.get(), nullptr), EVP_PKEY_CTX_free);
  ASSERT_EQ(EVP_PKEY_decrypt_init(ctx.get()), 1);
  ASSERT_EQ(EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_OAEP_PADDING), 1);
  unsigned char plain[256];
  size_t plain_len = sizeof plain;
  ASSERT_EQ(
      EVP_PKEY_decrypt(ctx.get(), plain, &plain_len,
                       reinterpret_cast<const unsigned char*>(encrypted.data()), encrypted.size()),
      1);
  std::string decoded(reinterpret_cast<char*>(plain), plain_len);
  for (size_t i = 0; i < decoded.size(); ++i) decoded[i] ^= nonce[i % nonce.size()];
  EXPECT_EQ(decoded, std::string("secret\0", 7));

  EXPECT_THROW(RsaEncryptPassword("x", nonce, "not a key"), Error);
}

}  // namespace
}  // namespace rowbridge::mysql
