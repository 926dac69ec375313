#include "app/data/fetch.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "app/data/interrupt.h"
#include "core/error.h"

namespace stereo::data {
namespace fs = std::filesystem;
namespace {

struct CurlDeleter {
  void operator()(CURL* c) const noexcept { curl_easy_cleanup(c); }
};
struct FileCloser {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

// curl_global_init once per process, before any thread uses curl.
void global_init() {
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  require(rc == CURLE_OK, std::string("data: libcurl could not initialise: ") + curl_easy_strerror(rc));
}

struct Transfer {
  std::FILE* file = nullptr;
  fs::path path;
  curl_off_t resumed_from = 0;
  bool write_failed = false;
  const FetchOptions* options = nullptr;
  std::chrono::steady_clock::time_point last_bar{};
};

std::size_t on_data(char* data, std::size_t size, std::size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  if (std::fwrite(data, 1, n, t.file) != n) {
    t.write_failed = true;
    return 0;
  }
  return n;
}

std::string megabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", bytes / 1e6);
  return buf;
}

int on_progress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
  auto& t = *static_cast<Transfer*>(user);
  if (interrupted()) return 1;  // CURLE_ABORTED_BY_CALLBACK
  if (!t.options->progress) return 0;
  const auto clock = std::chrono::steady_clock::now();
  if (clock - t.last_bar < std::chrono::milliseconds(100) && now != total) return 0;
  t.last_bar = clock;
  const double done = double(t.resumed_from + now);
  const double all = double(t.resumed_from + total);
  constexpr std::size_t WIDTH = 30;
  const std::size_t filled = total > 0 ? std::min(WIDTH, static_cast<std::size_t>(double(WIDTH) * done / all)) : 0;
  std::fprintf(stderr, "\r  %-28.28s [%s%s] %s / %s MB ", t.options->label.c_str(), std::string(filled, '#').c_str(),
               std::string(WIDTH - filled, ' ').c_str(), megabytes(done).c_str(),
               total > 0 ? megabytes(all).c_str() : "?");
  return 0;
}

// Transient: worth another try with what arrived kept.
bool transient(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_GOT_NOTHING:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return true;
    default: return false;
  }
}

// One try; returns curl's code, throws on what no retry can mend.
CURLcode try_once(const std::string& url, const fs::path& part, const FetchOptions& options) {
  std::error_code ec;
  const auto have = fs::exists(part, ec) ? fs::file_size(part, ec) : 0;
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(part.c_str(), "ab"));
  require(file != nullptr, "data: cannot write " + part.string());
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  require(curl != nullptr, "data: libcurl could not start a transfer");
  Transfer t;
  t.file = file.get();
  t.path = part;
  t.resumed_from = static_cast<curl_off_t>(have);
  t.options = &options;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "stereo-data/1 (libcurl)");
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, options.connect_timeout_s);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, options.stall_timeout_s);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  if (have > 0) curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(have));
  const CURLcode rc = curl_easy_perform(c);
  const bool closed = std::fclose(file.release()) == 0;
  if (options.progress) std::fputc('\n', stderr);
  throw_if_interrupted("data");
  require(!t.write_failed && closed, "data: cannot write " + part.string() + " (disk full?)");
  if (rc == CURLE_RANGE_ERROR) {
    // The server answered the Range request with the whole file (curl refuses to append it):
    // the next try starts from nothing.
    fs::remove(part, ec);
    return CURLE_PARTIAL_FILE;
  }
  if (rc == CURLE_HTTP_RETURNED_ERROR) {
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    // 416: the partial file is not a prefix of what the server has (or already complete);
    // start again from nothing.
    if (code == 416 && have > 0) {
      fs::remove(part, ec);
      return CURLE_PARTIAL_FILE;
    }
    throw Error("data: GET " + url + ": HTTP " + std::to_string(code));
  }
  return rc;
}

}  // namespace

void fetch(const std::string& url, const fs::path& part, const FetchOptions& options) {
  global_init();
  require(options.attempts >= 1, "data: fetch attempts must be >= 1, got " + std::to_string(options.attempts));
  double pause = options.retry_pause_s;
  for (int attempt = 1;; ++attempt) {
    const CURLcode rc = try_once(url, part, options);
    if (rc == CURLE_OK) return;
    const std::string why = curl_easy_strerror(rc);
    if (!transient(rc) || attempt >= options.attempts)
      throw Error("data: GET " + url + ": " + why + " (after " + std::to_string(attempt) + " of " +
                  std::to_string(options.attempts) + " tries)");
    std::fprintf(stderr, "data: %s: %s; retrying (%d of %d)\n", url.c_str(), why.c_str(), attempt + 1,
                 options.attempts);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(pause);
    while (std::chrono::steady_clock::now() < until) {
      throw_if_interrupted("data");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pause *= 2.0;
  }
}

}  // namespace stereo::data
