#include "models/base/error.h"

namespace exsim {
namespace {

std::string join_lines(const std::vector<std::string>& messages) {
  std::string text;
  for (const auto& m : messages) {
    if (!text.empty()) text += '\n';
    text += m;
  }
  return text;
}

}  // namespace

InputError::InputError(std::vector<std::string> messages)
    : std::runtime_error(join_lines(messages)), messages_(std::move(messages)) {}

}  // namespace exsim
