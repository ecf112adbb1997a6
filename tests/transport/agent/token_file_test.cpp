// The token file: a private file holding at least 128 bits, as ssh holds a key.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "models/base/error.h"
#include "transport/agent/token_file.h"

namespace exsim::transport {
namespace {

// A fresh path in /tmp for this test, removed at the end of its scope.
struct TempPath {
  std::string path = "/tmp/exsim-token-test-" + std::to_string(getpid()) + "-" + random_token().substr(0, 8);
  ~TempPath() { unlink(path.c_str()); }
};

void write_file(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path) << text;
  chmod(path.c_str(), mode);
}

std::string refusal(const std::string& path) {
  try {
    read_token_file(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("a token file open to its group or others is refused, naming the file and the fix") {
  TempPath f;
  write_file(f.path, "0123456789abcdef0123456789abcdef\n", 0644);
  const std::string why = refusal(f.path);
  CHECK(why.find(f.path) != std::string::npos);
  CHECK(why.find("mode 644") != std::string::npos);
  CHECK(why.find("chmod 600") != std::string::npos);
  chmod(f.path.c_str(), 0640);
  CHECK(refusal(f.path).find("mode 640") != std::string::npos);
  chmod(f.path.c_str(), 0600);
  CHECK(read_token_file(f.path) == "0123456789abcdef0123456789abcdef");
  chmod(f.path.c_str(), 0400);
  CHECK(refusal(f.path).empty());
}

TEST_CASE("a token of fewer than 128 bits is refused") {
  TempPath f;
  write_file(f.path, "x\n", 0600);
  CHECK(refusal(f.path).find("carries at most 6 bits") != std::string::npos);
  write_file(f.path, "0123456789abcdef0123456789abcde\n", 0600);  // 31 hex digits: 124 bits
  CHECK(refusal(f.path).find("at most 124 bits") != std::string::npos);
  write_file(f.path, "abcdefghijklmnopqrstuvwxyz\n", 0600);  // 26 of a wider alphabet: counted 156
  CHECK(refusal(f.path).empty());
  write_file(f.path, "\n\n", 0600);
  CHECK(refusal(f.path).find("holds no token") != std::string::npos);
  CHECK(token_bits("0123456789abcdef0123456789abcdef") == 128);
}

TEST_CASE("a missing file or a directory is named") {
  CHECK(refusal("/nonexistent/token").find("/nonexistent/token: No such file") != std::string::npos);
  CHECK(refusal("/tmp").find("not a regular file") != std::string::npos);
}

TEST_CASE("a new token file is private, strong, and never written over an existing file") {
  TempPath f;
  const std::string token = write_new_token_file(f.path);
  struct stat info {};
  REQUIRE(stat(f.path.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  CHECK(token_bits(token) >= kMinTokenBits);
  CHECK(read_token_file(f.path) == token);
  CHECK_THROWS_AS(write_new_token_file(f.path), InputError);
  CHECK(read_token_file(f.path) == token);  // untouched
  CHECK(random_token() != random_token());
}

}  // namespace
}  // namespace exsim::transport
