#include "transport/agent/token_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "models/base/error.h"

namespace exsim::transport {
namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw InputError({fmt::format("token file {}: {}", path, why)});
}

constexpr const char* kHowToMake =
    "make one with 'exsim agent --new-token-file FILE', or '(umask 077; openssl rand -hex 16 > FILE)'";

}  // namespace

std::string random_token() {
  std::uint64_t words[2];
  if (getrandom(words, sizeof words, 0) != static_cast<ssize_t>(sizeof words)) {
    throw std::runtime_error("cannot read random bytes for the agents' token");
  }
  return fmt::format("{:016x}{:016x}", words[0], words[1]);
}

int token_bits(const std::string& token) {
  const bool hex = std::all_of(token.begin(), token.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
  return static_cast<int>(token.size()) * (hex ? 4 : 6);
}

std::string read_token_file(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) refuse(path, std::strerror(errno));
  if (!S_ISREG(info.st_mode)) refuse(path, "not a regular file");
  if ((info.st_mode & 077) != 0) {
    refuse(path, fmt::format("its mode {:03o} lets its group or others at the secret; 'chmod 600 {}' (as ssh "
                             "refuses such a key)",
                             info.st_mode & 0777, path));
  }
  std::ifstream in(path);
  if (!in) refuse(path, fmt::format("cannot be read: {}", std::strerror(errno)));
  std::string token;
  if (!(in >> token)) refuse(path, fmt::format("holds no token (expected one word); {}", kHowToMake));
  if (token_bits(token) < kMinTokenBits) {
    refuse(path, fmt::format("a token of {} characters carries at most {} bits, and at least {} are needed "
                             "(32 hexadecimal digits); {}",
                             token.size(), token_bits(token), kMinTokenBits, kHowToMake));
  }
  return token;
}

std::string write_new_token_file(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) refuse(path, fmt::format("cannot create it: {}", std::strerror(errno)));
  const std::string token = random_token();
  const std::string line = token + "\n";
  const bool written = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  if (close(fd) != 0 || !written) {
    unlink(path.c_str());
    refuse(path, "cannot write it");
  }
  return token;
}

}  // namespace exsim::transport
