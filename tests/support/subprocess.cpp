#include "support/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "common/error.h"

extern char** environ;

namespace rowbridge::testing {
namespace {

// Owns one pipe end and closes it exactly once.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }
  int get() const { return fd_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) {
    if (!line.empty()) line += ' ';
    line += arg;
  }
  return line;
}

CommandResult RunCommand(const std::vector<std::string>& argv, std::string_view input,
                         std::chrono::seconds timeout) {
  if (argv.empty()) Fail(ErrorCode::kInvalidArgument, "RunCommand: empty argv");
  ::signal(SIGPIPE, SIG_IGN);
  const std::string line = CommandLine(argv);

  int in_fds[2], out_fds[2], err_fds[2];
  if (::pipe2(in_fds, O_CLOEXEC) != 0 || ::pipe2(out_fds, O_CLOEXEC) != 0 ||
      ::pipe2(err_fds, O_CLOEXEC) != 0) {
    Fail(ErrorCode::kIo, "pipe() for `{}` failed: {}", line, std::strerror(errno));
  }
  Fd in_read(in_fds[0]), in_write(in_fds[1]);
  Fd out_read(out_fds[0]), out_write(out_fds[1]);
  Fd err_read(err_fds[0]), err_write(err_fds[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), 2);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  pid_t pid = 0;
  const int spawn_error = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) {
    Fail(ErrorCode::kIo, "cannot start `{}`: {}", line, std::strerror(spawn_error));
  }
  in_read.Close();
  out_write.Close();
  err_write.Close();
  if (input.empty()) in_write.Close();
  for (int fd : {in_write.get(), out_read.get(), err_read.get()}) {
    if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  }

  CommandResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  size_t written = 0;
  char buffer[65536];
  bool timed_out = false;
  while (out_read.get() >= 0 || err_read.get() >= 0) {
    pollfd fds[3];
    int count = 0;
    if (in_write.get() >= 0) fds[count++] = {in_write.get(), POLLOUT, 0};
    if (out_read.get() >= 0) fds[count++] = {out_read.get(), POLLIN, 0};
    if (err_read.get() >= 0) fds[count++] = {err_read.get(), POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    const int ready = ::poll(fds, count, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) {
      Fail(ErrorCode::kIo, "poll() while running `{}` failed: {}", line, std::strerror(errno));
    }
    for (int i = 0; i < count && ready > 0; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in_write.get()) {
        const ssize_t n = ::write(in_write.get(), input.data() + written, input.size() - written);
        if (n > 0) written += static_cast<size_t>(n);
        // EPIPE: the program stopped reading; its exit status will tell why.
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) {
          in_write.Close();
        }
        continue;
      }
      Fd& source = fds[i].fd == out_read.get() ? out_read : err_read;
      std::string& sink = fds[i].fd == out_read.get() ? result.out : result.err;
      const ssize_t n = ::read(source.get(), buffer, sizeof buffer);
      if (n > 0) {
        sink.append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        source.Close();
      }
    }
  }
  if (timed_out) ::kill(pid, SIGKILL);
  in_write.Close();

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      Fail(ErrorCode::kIo, "waitpid() for `{}` failed: {}", line, std::strerror(errno));
    }
  }
  if (timed_out) {
    Fail(ErrorCode::kTimeout, "`{}` still ran after {} s and was killed; stderr so far: {}", line,
         timeout.count(), result.err);
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace rowbridge::testing
