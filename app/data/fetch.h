#pragma once
/// \file app/data/fetch.h
/// One file over HTTP(S) with libcurl: resumes a partial file with an HTTP Range request, retries
/// transient failures (a dropped connection, a refused one, a timeout) with a growing pause,
/// never retries an HTTP error status, shows a progress bar on a terminal and stops on SIGINT
/// (app/data/interrupt.h).

#include <filesystem>
#include <string>

namespace stereo::data {

struct FetchOptions {
  int attempts = 5;             ///< tries in all, the first included
  double retry_pause_s = 2.0;   ///< pause before the second try, doubled before each further one
  long connect_timeout_s = 30;  ///< per try
  long stall_timeout_s = 60;    ///< a try ends (and is retried) after this long below 1 byte/s
  bool progress = false;        ///< a progress bar on stderr (the CLI sets it on a terminal only)
  std::string label;            ///< what the bar names (a file name)
};

/// Downloads `url` into `part`. Bytes `part` already holds are kept and the rest is requested
/// with a Range header; a server that ignores the Range restarts the file. Throws stereo::Error
/// naming the URL on an HTTP error status (no retry), after the last failed try, or when
/// interrupted; `part` then keeps what arrived, for a later resume.
void fetch(const std::string& url, const std::filesystem::path& part, const FetchOptions& options);

}  // namespace stereo::data
