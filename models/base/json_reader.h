// Typed, path-aware reading of JSON documents (scenarios, cost profiles).
//
// A JsonNode is a value plus its JSON pointer; readers check type and range and
// record a message naming file, pointer, what was expected and what was found.
// Errors are collected in Diagnostics so that one run reports every problem;
// the loader throws once at the end. Included only by loader .cpp files, so
// nlohmann's heavy header stays out of widely included headers.
#ifndef EXSIM_MODELS_BASE_JSON_READER_H_
#define EXSIM_MODELS_BASE_JSON_READER_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "models/base/size.h"

namespace exsim {

// Parses JSON text, rejecting duplicate keys; InputError at file:line:column.
nlohmann::ordered_json parse_json_text(std::string_view text, const std::string& file);

// A whole file's text; InputError "PATH: cannot open WHAT" when unreadable.
std::string read_text_file(const std::string& path, const std::string& what);

// The lines of a JSON Lines text that hold something, each with its 1-based
// line number (for messages), a trailing '\r' removed.
std::vector<std::pair<std::size_t, std::string_view>> json_lines(std::string_view text);

// A JSON pointer's reference token (RFC 6901): '~' -> "~0", '/' -> "~1".
std::string escape_pointer_token(std::string_view token);

// (JSON pointer, the --set assignment that set it): for naming an error's origin.
using Overridden = std::vector<std::pair<std::string, std::string>>;

class Diagnostics {
 public:
  explicit Diagnostics(std::string file, Overridden overridden = {})
      : file_(std::move(file)), overridden_(std::move(overridden)) {}
  // Records "FILE:POINTER: MESSAGE", naming the --set that gave the value when one did.
  void error(std::string_view pointer, std::string_view message);
  bool ok() const { return errors_.empty(); }
  const std::string& file() const { return file_; }
  const Overridden& overridden() const { return overridden_; }
  // Throws InputError with every recorded message.
  void throw_if_errors() const;

 private:
  std::string file_;
  Overridden overridden_;
  std::vector<std::string> errors_;
};

class JsonNode;
// Calls read(element) for each element of the array `key` of `node` (an error
// when absent or not an array), each element checked to be an object first.
void for_each_object(const JsonNode& node, std::string_view key, const std::function<void(const JsonNode&)>& read);

// Closest candidate within a small edit distance, for "did you mean" hints.
std::string closest_name(std::string_view name, const std::vector<std::string>& candidates);

class JsonNode {
 public:
  JsonNode(const nlohmann::ordered_json* value, std::string pointer, Diagnostics* diagnostics)
      : value_(value), pointer_(std::move(pointer)), diagnostics_(diagnostics) {}

  bool present() const { return value_ != nullptr; }
  const std::string& pointer() const { return pointer_; }
  const nlohmann::ordered_json& json() const { return *value_; }
  Diagnostics& diagnostics() const { return *diagnostics_; }

  bool is_object() const;
  bool is_array() const;
  bool is_string() const;
  bool is_number() const;

  // Members and elements; an absent member gives a node with present() false.
  JsonNode member(std::string_view key) const;
  JsonNode required(std::string_view key) const;  // records an error when absent
  JsonNode element(size_t index) const;
  size_t size() const;
  std::vector<std::string> keys() const;  // in document order

  // Records an error unless the node is an object (or array), returns whether it is.
  bool expect_object() const;
  bool expect_array() const;
  // Records "unknown key 'x' (did you mean 'y'?)" for every key not in `known`.
  void reject_unknown_keys(std::initializer_list<std::string_view> known) const;
  void reject_unknown_keys(std::span<const std::string_view> known) const;

  // Readers return `fallback` (and record an error) when the value is wrong.
  std::string string(std::string_view fallback = {}) const;
  bool boolean(bool fallback) const;  // an absent member gives `fallback`
  double number(double fallback, double min = -std::numeric_limits<double>::infinity(),
                bool min_exclusive = false,
                double max = std::numeric_limits<double>::infinity()) const;
  std::int64_t integer(std::int64_t fallback, std::int64_t min,
                       std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  // A byte size: a number or "16K"-style string, in [min, max] (1 TiB by default).
  Bytes size(Bytes fallback, Bytes min = 1, Bytes max = kMaxSize) const;
  static constexpr Bytes kMaxSize = 1024 * kGiB;
  // One of `names`; returns its index.
  int choice(std::span<const std::string_view> names, int fallback) const;
  int choice(std::initializer_list<std::string_view> names, int fallback) const {
    return choice(std::span<const std::string_view>(names.begin(), names.size()), fallback);
  }

  void error(std::string_view message) const;
  // "got -5", "got \"abc\"", "got an object": for messages.
  std::string describe_value() const;

 private:
  const nlohmann::ordered_json* value_;
  std::string pointer_;
  Diagnostics* diagnostics_;
};

}  // namespace exsim

#endif  // EXSIM_MODELS_BASE_JSON_READER_H_
