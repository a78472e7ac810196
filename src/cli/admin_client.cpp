#include "cli/admin_client.h"

#include <fmt/format.h>
#include <httplib.h>

#include <cctype>
#include <chrono>
#include <nlohmann/json.hpp>

#include "cli/recorded_table_command.h"
#include "common/error.h"
#include "config/units.h"

namespace rowbridge::cli {

std::optional<AdminEndpoint> FindAdminEndpoint(const config::Config& config,
                                               const std::string& address_flag, std::string& why) {
  std::string listen = address_flag;
  if (listen.empty()) {
    if (!config.http.enabled) {
      why = "http.enabled is false, so `run` serves no admin HTTP (pass --address if it does)";
      return std::nullopt;
    }
    listen = config.http.listen;
  }
  const config::ListenAddress address = config::ParseListenAddress(listen);
  if (address.port == 0) {
    why = fmt::format(
        "http.listen {} takes a free port at each start, so it is not known here (pass "
        "--address 127.0.0.1:PORT with the port `run` logged)",
        listen);
    return std::nullopt;
  }
  AdminEndpoint endpoint{address.host, address.port, listen};
  // Listening on every interface: loopback reaches it.
  if (address.host == "0.0.0.0") endpoint.host = "127.0.0.1";
  if (address.host == "::") endpoint.host = "::1";
  return endpoint;
}

HttpAnswer CallAdmin(const AdminEndpoint& endpoint, const std::string& token,
                     const std::string& method, const std::string& path) {
  httplib::Client client(endpoint.host, endpoint.port);
  client.set_connection_timeout(std::chrono::seconds(3));
  client.set_read_timeout(std::chrono::seconds(15));
  client.set_write_timeout(std::chrono::seconds(15));
  client.set_url_encode(false);  // the path is encoded already (TablePath)
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  httplib::Result result =
      method == "POST" ? client.Post(path, headers, "", "text/plain") : client.Get(path, headers);
  HttpAnswer answer;
  if (!result) {
    switch (result.error()) {
      case httplib::Error::Connection:
        answer.error = "cannot connect (connection refused or no route)";
        break;
      case httplib::Error::ConnectionTimeout:
        answer.error = "connection timed out";
        break;
      case httplib::Error::Read:
        answer.error = "the connection broke before an answer";
        break;
      default:
        answer.error = httplib::to_string(result.error());
    }
    return answer;
  }
  answer.connected = true;
  answer.status = result->status;
  answer.body = result->body;
  return answer;
}

std::string TableCommandPath(const std::string& name, const std::string& action) {
  std::string path = "/tables/";
  for (unsigned char c : name) {
    if (std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == '~') {
      path += static_cast<char>(c);
    } else {
      path += fmt::format("%{:02X}", c);
    }
  }
  return path + "/" + action;
}

TableCommandOutcome SubmitTableCommand(const config::Config& config, server::TableAction action,
                                       const std::string& table, const std::string& address_flag) {
  const std::string action_name = server::TableActionName(action);
  const size_t dot = table.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == table.size()) {
    Fail(ErrorCode::kInvalidArgument, "\"{}\" is not DATABASE.TABLE", table);
  }
  std::string why;
  TableCommandOutcome outcome;
  outcome.endpoint = FindAdminEndpoint(config, address_flag, why);
  HttpAnswer answer;
  if (outcome.endpoint) {
    answer = CallAdmin(*outcome.endpoint, config.http.token, "POST",
                       TableCommandPath(table, action_name));
    if (!answer.connected)
      why = fmt::format("nothing answers at {}: {}", outcome.endpoint->label, answer.error);
  }
  if (!answer.connected) {
    // No `run` reached: the command is recorded for the next one (refused if one is alive).
    outcome.endpoint.reset();
    outcome.recorded = true;
    outcome.message = fmt::format("{} {}: {}", action_name, table,
                                  RecordTableCommand(config, action, table, why));
    return outcome;
  }
  std::string message = answer.body;
  const nlohmann::json body = nlohmann::json::parse(answer.body, nullptr, false);
  if (!body.is_discarded() && body.is_object() && body.contains("message") &&
      body["message"].is_string()) {
    message = body["message"].get<std::string>();
  }
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  outcome.refused = answer.status < 200 || answer.status >= 300;
  outcome.message = fmt::format("{} {}: {} by the rowbridge at {} (HTTP {}): {}", action_name,
                                table, outcome.refused ? "refused" : "accepted",
                                outcome.endpoint->label, answer.status, message);
  return outcome;
}

}  // namespace rowbridge::cli
