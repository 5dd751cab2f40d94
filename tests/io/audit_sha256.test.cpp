// SPDX-License-Identifier: MIT
// SHA-256 against the NIST FIPS 180-4 examples and CAVP short/long message vectors
// ("SHA256ShortMsg.rsp", "SHA256LongMsg.rsp"; csrc.nist.gov, Cryptographic Standards and
// Guidelines: Examples with Intermediate Values, SHA-256), plus the padding boundaries.
#include <doctest/doctest.h>

#include <string>

#include <gpurent/io/text/sha256.hpp>

namespace test_io_audit_sha256 {
using gpurent::io::sha256;
using gpurent::io::sha256_hex;

TEST_CASE("sha256: the NIST FIPS 180-4 example vectors") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 448 bits: the padding needs a second block.
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // 896 bits.
  CHECK(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST_CASE("sha256: one million 'a', fed in uneven pieces") {
  sha256 h;
  const std::string piece(997, 'a');
  std::size_t fed = 0;
  while (fed + piece.size() <= 1000000) {
    h.update(piece);
    fed += piece.size();
  }
  h.update(std::string(1000000 - fed, 'a'));
  CHECK(gpurent::io::to_hex(h.digest()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256: lengths at the padding boundaries (55, 56, 63, 64, 119, 120 bytes)") {
  // Reference digests from an independent implementation (Python hashlib).
  CHECK(sha256_hex(std::string(55, 'a')) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  CHECK(sha256_hex(std::string(56, 'a')) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  CHECK(sha256_hex(std::string(63, 'a')) == "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34");
  CHECK(sha256_hex(std::string(64, 'a')) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
  CHECK(sha256_hex(std::string(119, 'a')) == "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb");
  CHECK(sha256_hex(std::string(120, 'a')) == "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c");
}

TEST_CASE("sha256: byte at a time equals all at once") {
  const std::string msg = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
  sha256 h;
  for (const char c : msg) h.update(std::string_view(&c, 1));
  CHECK(gpurent::io::to_hex(h.digest()) == sha256_hex(msg));
}

}  // namespace test_io_audit_sha256
