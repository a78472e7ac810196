// `rowbridge run` under systemd's notify protocol, on real servers: the test plays systemd. It
// binds a unix datagram socket, starts the rowbridge binary with NOTIFY_SOCKET naming it and
// WATCHDOG_USEC set, and reads what arrives: READY=1 together with the state line "running" once
// the stream runs, WATCHDOG=1 pings at half the interval while it replicates, and STOPPING=1
// after SIGTERM, before the clean exit.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The service manager's end of the notify socket.
class NotifySocket {
 public:
  explicit NotifySocket(const std::filesystem::path& path) : path_(path.string()) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    EXPECT_GE(fd_, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    EXPECT_LT(path_.size(), sizeof(address.sun_path)) << path_;
    path_.copy(address.sun_path, sizeof(address.sun_path) - 1);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0) << path_;
  }
  ~NotifySocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  const std::string& path() const { return path_; }

  // Reads messages until one contains `line` (a whole line of it) or `timeout` passes; every
  // message read is kept in messages(). Returns the message with the line, or empty.
  std::string WaitForLine(const std::string& line, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (const std::string& m : messages_) {
      if (HasLine(m, line) && !consumed(m)) return Consume(m);
    }
    while (Clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (::poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 1))) <= 0) continue;
      char buffer[4096];
      const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) continue;
      messages_.emplace_back(buffer, static_cast<size_t>(n));
      if (HasLine(messages_.back(), line)) return Consume(messages_.back());
    }
    return "";
  }

  std::string AllMessages() const {
    std::string out;
    for (const std::string& m : messages_) out += "[" + m + "]\n";
    return out;
  }

 private:
  static bool HasLine(const std::string& message, const std::string& line) {
    size_t at = 0;
    while (at <= message.size()) {
      size_t end = message.find('\n', at);
      if (end == std::string::npos) end = message.size();
      if (message.compare(at, end - at, line) == 0) return true;
      at = end + 1;
    }
    return false;
  }
  bool consumed(const std::string& m) const {
    for (const std::string* c : consumed_) {
      if (c == &m) return true;
    }
    return false;
  }
  std::string Consume(const std::string& m) {
    consumed_.push_back(&m);
    return m;
  }

  std::string path_;
  int fd_ = -1;
  std::deque<std::string> messages_;  // a deque: consumed_ points into it
  std::vector<const std::string*> consumed_;
};

// Sets an environment variable for the children started while it lives.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

class ServiceNotifyTest : public PipelineFixture {
 protected:
  ServiceNotifyTest() : PipelineFixture("rbsn") {}
};

TEST_F(ServiceNotifyTest, ReadyWhenRunningWatchdogWhileAliveStoppingOnSigterm) {
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`; CREATE TABLE `" + source_db_ +
                          "`.events (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB");
  TestDir dir("service-notify");
  NotifySocket systemd(dir.path() / "notify");
  RowbridgeProcess rb(dir.path(), Config("  - match: " + source_db_ + ".events\n"));
  {
    ScopedEnv socket("NOTIFY_SOCKET", systemd.path());
    ScopedEnv watchdog("WATCHDOG_USEC", "1000000");  // a ping every 500 ms
    ::unsetenv("WATCHDOG_PID");
    rb.Start();
  }

  const std::string ready = systemd.WaitForLine("READY=1", 60s);
  ASSERT_FALSE(ready.empty()) << "no READY=1; received:\n"
                              << systemd.AllMessages() << "log:\n"
                              << rb.log();
  EXPECT_NE(ready.find("STATUS=running"), std::string::npos) << ready;
  EXPECT_TRUE(
      std::regex_search(rb.HttpGet("/status"), std::regex("\"state\"\\s*:\\s*\"running\"")));

  // Pings at half the interval while it replicates: at least 4 in the next 3 s.
  RunMysqlSql(mysql_, fmt::format("INSERT INTO `{}`.events VALUES (1, 7)", source_db_));
  const auto since = Clock::now();
  int pings = 0;
  while (Clock::now() - since < 3s) {
    if (!systemd.WaitForLine("WATCHDOG=1", 1s).empty()) ++pings;
  }
  EXPECT_GE(pings, 4) << systemd.AllMessages();
  rb.WaitCaughtUp(60s);

  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
  EXPECT_FALSE(systemd.WaitForLine("STOPPING=1", 5s).empty()) << systemd.AllMessages();
  std::printf("what systemd received:\n%s", systemd.AllMessages().c_str());
}

}  // namespace
}  // namespace rowbridge::testing
