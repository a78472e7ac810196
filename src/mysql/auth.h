// The password proofs of the MySQL/MariaDB authentication plugins. Pure functions of the password
// and the server's nonce ("scramble"); the exchange itself lives in connection.cpp.
#pragma once

#include <string>
#include <string_view>

namespace rowbridge::mysql {

// mysql_native_password: SHA1(pw) XOR SHA1(nonce + SHA1(SHA1(pw))); empty for an empty password.
// Uses the first 20 bytes of `nonce`.
std::string NativePasswordProof(std::string_view password, std::string_view nonce);

// caching_sha2_password fast path: SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + nonce); empty for
// an empty password.
std::string CachingSha2Proof(std::string_view password, std::string_view nonce);

// caching_sha2_password / sha256_password full authentication without TLS: (password + NUL) XOR
// the nonce (repeated), encrypted with RSA-OAEP (SHA-1) under the server's PEM public key.
// Throws Error(kProtocol) if the key cannot be read.
std::string RsaEncryptPassword(std::string_view password, std::string_view nonce,
                               std::string_view public_key_pem);

// MariaDB client_ed25519: a 64-byte Ed25519 signature of `message` under the key derived from
// SHA-512 of the password (of any length), as the server's auth_ed25519 plugin expects. For a
// 32-byte password this equals a standard Ed25519 signature with the password as seed.
std::string Ed25519Signature(std::string_view password, std::string_view message);

}  // namespace rowbridge::mysql
