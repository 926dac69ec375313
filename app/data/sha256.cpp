#include "app/data/sha256.h"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>
#include <vector>

#include "core/error.h"

namespace stereo::data {
namespace {

struct DigestDeleter {
  void operator()(EVP_MD_CTX* ctx) const noexcept { EVP_MD_CTX_free(ctx); }
};
using Digest = std::unique_ptr<EVP_MD_CTX, DigestDeleter>;

Digest start() {
  Digest ctx(EVP_MD_CTX_new());
  require(ctx != nullptr && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) == 1,
          "sha256: cannot start an OpenSSL SHA-256 digest");
  return ctx;
}

std::string finish(EVP_MD_CTX* ctx) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int n = 0;
  require(EVP_DigestFinal_ex(ctx, md.data(), &n) == 1, "sha256: OpenSSL could not finish the digest");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

}  // namespace

std::string sha256_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  require(bool(in), "sha256: cannot read " + path.string());
  Digest ctx = start();
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const std::streamsize got = in.gcount();
    if (got > 0) require(EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<std::size_t>(got)) == 1,
                         "sha256: OpenSSL digest update failed on " + path.string());
  }
  require(in.eof(), "sha256: read error in " + path.string());
  return finish(ctx.get());
}

std::string sha256_bytes(const void* bytes, std::size_t size) {
  Digest ctx = start();
  require(EVP_DigestUpdate(ctx.get(), bytes, size) == 1, "sha256: OpenSSL digest update failed");
  return finish(ctx.get());
}

}  // namespace stereo::data
