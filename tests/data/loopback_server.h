#pragma once
// A small HTTP/1.1 server on 127.0.0.1 for the `stereo data` tests: GET with `Range: bytes=N-`,
// 404 for unknown paths, and two faults on demand: drop the connection after a number of body
// bytes (the first request only), or run a hook there and then stall (the interrupt test).
// One connection at a time, `Connection: close`; it never binds anything but the loopback.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace stereo::testing {

class LoopbackServer {
 public:
  LoopbackServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) throw std::runtime_error("loopback: socket() failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;  // any free port
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 8) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      throw std::runtime_error("loopback: cannot listen on 127.0.0.1");
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~LoopbackServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  [[nodiscard]] std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  void put(const std::string& path, std::string body) {
    std::lock_guard<std::mutex> lock(mutex_);
    files_[path] = std::move(body);
  }
  /// The first response with a body stops after `bytes` body bytes: closed, or `hook` run and
  /// the connection held open without data for `stall_ms`.
  void fault_after(std::size_t bytes, std::function<void()> hook = {}, int stall_ms = 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    fault_bytes_ = bytes;
    hook_ = std::move(hook);
    stall_ms_ = stall_ms;
  }
  /// Answers every request with the whole file, Range or not (as some servers do).
  void ignore_ranges() {
    std::lock_guard<std::mutex> lock(mutex_);
    ignore_ranges_ = true;
  }
  /// Every request line and its Range header ("" when none), in order.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      handle(c);
      ::close(c);
    }
  }

  static bool send_all(int c, const char* data, std::size_t n) {
    while (n > 0) {
      const ssize_t sent = ::send(c, data, n, MSG_NOSIGNAL);
      if (sent <= 0) return false;
      data += sent;
      n -= static_cast<std::size_t>(sent);
    }
    return true;
  }

  void handle(int c) {
    std::string head;
    char buf[4096];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (head.find("\r\n\r\n") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const ssize_t got = ::recv(c, buf, sizeof buf, 0);
      if (got <= 0) return;
      head.append(buf, static_cast<std::size_t>(got));
    }
    const std::string line = head.substr(0, head.find("\r\n"));
    std::string range;
    if (const auto r = head.find("Range: bytes="); r != std::string::npos)
      range = head.substr(r + 13, head.find("\r\n", r) - r - 13);
    const std::string path = line.substr(line.find(' ') + 1, line.rfind(' ') - line.find(' ') - 1);
    std::string body;
    bool found = false;
    std::size_t fault = 0;
    std::function<void()> hook;
    int stall = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.emplace_back(line, range);
      if (const auto it = files_.find(path); it != files_.end()) {
        found = true;
        body = it->second;
      }
      fault = fault_bytes_;
      if (ignore_ranges_) range.clear();
      hook = hook_;
      stall = stall_ms_;
    }
    if (!found) {
      const std::string r = "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found";
      send_all(c, r.data(), r.size());
      return;
    }
    std::size_t from = range.empty() ? 0 : std::stoul(range);
    std::string status = "200 OK";
    std::string extra;
    if (!range.empty()) {
      if (from >= body.size()) {
        const std::string r = "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        send_all(c, r.data(), r.size());
        return;
      }
      status = "206 Partial Content";
      extra = "Content-Range: bytes " + std::to_string(from) + "-" + std::to_string(body.size() - 1) + "/" +
              std::to_string(body.size()) + "\r\n";
    }
    const std::string part = body.substr(from);
    const std::string h = "HTTP/1.1 " + status + "\r\nContent-Length: " + std::to_string(part.size()) +
                          "\r\nContent-Type: application/octet-stream\r\n" + extra + "Connection: close\r\n\r\n";
    if (!send_all(c, h.data(), h.size())) return;
    if (fault > 0 && fault < part.size()) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        fault_bytes_ = 0;  // the first response only
      }
      send_all(c, part.data(), fault);
      if (hook) hook();
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(stall);
      while (!stop_ && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return;  // closed mid-body
    }
    send_all(c, part.data(), part.size());
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mutex_;
  std::map<std::string, std::string> files_;
  std::size_t fault_bytes_ = 0;
  std::function<void()> hook_;
  int stall_ms_ = 0;
  bool ignore_ranges_ = false;
  std::vector<std::pair<std::string, std::string>> requests_;
};

}  // namespace stereo::testing
