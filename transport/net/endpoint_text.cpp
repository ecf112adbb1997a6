#include "transport/net/endpoint_text.h"

#include <cerrno>
#include <cstring>
#include <sstream>

#include <asio/ip/address.hpp>
#include <fmt/format.h>

#include "models/base/error.h"
#include "models/base/json_reader.h"

namespace exsim::transport {

std::variant<EndpointText, std::string> parse_endpoint(std::string_view text, bool any_port) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return std::string("expected ADDRESS:PORT");
  std::string_view address = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (address.size() >= 2 && address.front() == '[' && address.back() == ']') {
    address = address.substr(1, address.size() - 2);
  }
  asio::error_code error;
  asio::ip::make_address(std::string(address), error);
  if (address.empty() || error) {
    return "expected an IP address before the ':', got '" + std::string(address) + "' (host names are not resolved)";
  }
  const std::string range = any_port ? "0 (any) to 65535" : "1 to 65535";
  unsigned long port = 0;
  if (port_text.empty() || port_text.size() > 5) return "the port must be a number from " + range;
  for (char c : port_text) {
    if (c < '0' || c > '9') return "the port must be a number from " + range;
    port = port * 10 + static_cast<unsigned long>(c - '0');
  }
  if (port > 65535 || (port == 0 && !any_port)) return "the port must be a number from " + range;
  return EndpointText{std::string(address), static_cast<unsigned short>(port)};
}

std::vector<EndpointText> read_hosts_file(const std::string& path) {
  // The whole file is read as text first: a directory or an unreadable file is
  // named as such, not taken for an empty list.
  const std::string text = read_text_file(path, "the hosts file");
  std::vector<EndpointText> endpoints;
  std::vector<std::string> problems;  // every bad line, not only the first
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const auto endpoint = parse_endpoint(line, /*any_port=*/false);
    if (const auto* problem = std::get_if<std::string>(&endpoint)) {
      problems.push_back(fmt::format("{}:{}: '{}': {}", path, number, line, *problem));
    } else {
      endpoints.push_back(std::get<EndpointText>(endpoint));
    }
  }
  if (!problems.empty()) throw InputError(problems);
  return endpoints;
}

}  // namespace exsim::transport
