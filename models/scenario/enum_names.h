// Each enum of the scenario format with the names a scenario writes it by, in
// the enum's order: one table each, which the loader reads values by and
// results and advice write them by, so that a name is spelled once. A value
// added to an enum takes its name here too; the round trip of every name
// (tests/models/scenario/scenario_test.cpp) checks each table against its enum's
// order, and name_of refuses a value past the table's end.
#ifndef EXSIM_MODELS_SCENARIO_ENUM_NAMES_H_
#define EXSIM_MODELS_SCENARIO_ENUM_NAMES_H_

#include <array>
#include <cstddef>
#include <string_view>

#include "models/base/json_reader.h"
#include "models/scenario/policy.h"
#include "models/scenario/scenario.h"

namespace exsim {

template <typename E>
struct EnumNames;

template <>
struct EnumNames<CapacityRule> {
  static constexpr std::array<std::string_view, 2> kNames = {"fixed_len", "bytes"};
};
template <>
struct EnumNames<Compression> {
  static constexpr std::array<std::string_view, 3> kNames = {"lz4", "lz4_skip_local", "none"};
};
template <>
struct EnumNames<BroadcastSerialize> {
  static constexpr std::array<std::string_view, 2> kNames = {"once", "per_channel"};
};
template <>
struct EnumNames<SenderLayout> {
  static constexpr std::array<std::string_view, 2> kNames = {"head", "v4.3"};
};
template <>
struct EnumNames<PartitionKind> {
  static constexpr std::array<std::string_view, 4> kNames = {"hash", "broadcast", "random", "merge"};
};

// The name a scenario writes `value` by.
template <typename E>
constexpr std::string_view name_of(E value) {
  return EnumNames<E>::kNames.at(static_cast<std::size_t>(value));
}

// The value `node` names, `fallback` when it is absent; an unknown name is an
// error naming the choices.
template <typename E>
E read_enum(const JsonNode& node, E fallback) {
  return static_cast<E>(node.choice(EnumNames<E>::kNames, static_cast<int>(fallback)));
}

}  // namespace exsim

#endif  // EXSIM_MODELS_SCENARIO_ENUM_NAMES_H_
