// The ranks of a run (app/parallel/ranks.h): MPI's world when a launcher started this process
// and the build has MPI, this process alone otherwise.

#include "app/parallel/ranks.h"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <numeric>
#include <optional>
#include <thread>

#ifdef STEREO_WITH_MPI
#include <mpi.h>
#endif

namespace stereo::parallel {

namespace {

#ifndef STEREO_WITH_MPI
std::optional<int> env_int(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return *end == '\0' ? std::optional<int>(static_cast<int>(n)) : std::nullopt;
}

/// The world size a launcher announces: Open MPI's mpirun, MPICH's hydra and srun's PMI.
std::optional<int> launcher_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const auto n = env_int(name)) return n;
  if (env_int("PMIX_RANK")) return env_int("SLURM_NTASKS");
  return std::nullopt;
}
#endif

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown host";
  return name;
}

#ifdef STEREO_WITH_MPI
void mpi_check(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw Error(std::string("mpi: ") + what + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}
#endif

}  // namespace

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

std::vector<std::size_t> block_of(std::size_t count, int rank, int size) {
  const auto r = static_cast<std::size_t>(rank), n = static_cast<std::size_t>(size);
  std::vector<std::size_t> items(count * (r + 1) / n - count * r / n);
  std::iota(items.begin(), items.end(), count * r / n);
  return items;
}

std::vector<std::size_t> interleaved_of(std::size_t count, int rank, int size) {
  std::vector<std::size_t> items;
  for (auto i = static_cast<std::size_t>(rank); i < count; i += static_cast<std::size_t>(size)) items.push_back(i);
  return items;
}

Ranks::Ranks(const std::string& command)
    : command_(command), host_(host_name()), exceptions_at_start_(std::uncaught_exceptions()) {
  if (!launched_by_mpi()) {
    // srun without an MPI plugin starts every task as a process of its own.
    const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
    if (tasks != nullptr && std::strtol(tasks, nullptr, 10) > 1)
      throw Error(command + ": srun started " + std::string(tasks) +
                      " tasks without an MPI plugin, so each would do the whole run; use srun --mpi=pmix "
                      "(docs/streaming.md)",
                  ErrorKind::invalid_argument);
    return;
  }
#ifdef STEREO_WITH_MPI
  int provided = 0;
  mpi_check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  initialised_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local),
            "MPI_Comm_split_type");
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_free(&local);
  // Open MPI binds each rank to one core when there are two ranks or fewer. A GPU rank's host
  // threads (the page-locked staging copies, the stream's thread) then share that core; the
  // likely cause of mpirun -np 2 reaching 1.16x one GPU where --devices 0,1 reached 2.0x
  // (docs/streaming.md). Said once, by rank 0, which is bound as the others are.
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (rank_ == 0 && sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) == 1 &&
      std::thread::hardware_concurrency() > 1)
    std::cerr << "stereo: note: " << command << ": rank 0 is bound to one CPU core (Open MPI's default for two ranks "
              << "or fewer), so each rank's host threads share one core; mpirun --bind-to none (or --map-by socket) "
              << "gives them room\n";
#else
  const int n = launcher_size().value_or(1);
  if (n > 1)
    throw Error(command + ": started as one of " + std::to_string(n) +
                    " ranks (mpirun or srun), but this build has no MPI, so every rank would do the whole run and "
                    "write the same files; build with libopenmpi-dev installed (STEREO_WITH_MPI) or run one process",
                ErrorKind::unavailable);
#endif
}

Ranks::~Ranks() {
#ifdef STEREO_WITH_MPI
  if (!initialised_) return;
  if (std::uncaught_exceptions() > exceptions_at_start_ && !agreed_failure_ && !collectives_done_ && size_ > 1) {
    // This rank leaves with an error the others do not know of: they may wait in a collective
    // for it, so end the job rather than let them hang.
    std::cerr << "stereo: error: " << command_ << ": rank " << rank_ << " of " << size_
              << " stopped outside the agreed steps; aborting every rank\n";
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
#endif
}

std::vector<std::string> Ranks::collect(const std::string& text, bool everywhere) {
  if (size_ == 1) return {text};
#ifdef STEREO_WITH_MPI
  // The lengths first, then the texts end to end (MPI_Gatherv / MPI_Allgatherv).
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
  if (everywhere)
    mpi_check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  else
    mpi_check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::partial_sum(lengths.begin(), lengths.end() - 1, offsets.begin() + 1);
  const bool receives = everywhere || rank_ == 0;
  std::string all(receives ? static_cast<std::size_t>(offsets.back() + lengths.back()) : 0, '\0');
  if (everywhere)
    mpi_check(MPI_Allgatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                             MPI_COMM_WORLD),
              "MPI_Allgatherv");
  else
    mpi_check(MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                          MPI_COMM_WORLD),
              "MPI_Gatherv");
  std::vector<std::string> out;
  if (receives)
    for (std::size_t r = 0; r < lengths.size(); ++r)
      out.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  return out;
#else
  (void)everywhere;
  return {text};
#endif
}

std::vector<std::string> Ranks::gather(const std::string& text) { return collect(text, false); }

void Ranks::barrier() {
#ifdef STEREO_WITH_MPI
  if (size_ > 1) mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
#endif
}

std::vector<std::string> Ranks::agree(const std::exception_ptr& error, const std::string& payload) {
  if (size_ == 1) {
    if (error) std::rethrow_exception(error);
    return {payload};
  }
  // One message per rank: "0" + payload when it succeeded, "1" + its error text otherwise.
  std::string mine = "0" + payload;
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const PeerFailure& e) {
      mine = std::string("1") + e.what();
    } catch (const std::exception& e) {
      mine = std::string("1") + e.what();
    } catch (...) {
      mine = "1unknown exception";
    }
  }
  std::vector<std::string> all = collect(mine, true);
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r][0] != '1') continue;
    agreed_failure_ = true;
    if (rank_ != 0) throw PeerFailure(all[r].substr(1));
    if (r == 0) std::rethrow_exception(error);  // rank 0's own error, as one process would report it
    throw Error("rank " + std::to_string(r) + " of " + std::to_string(size_) + ": " + all[r].substr(1));
  }
  for (std::string& p : all) p.erase(0, 1);
  return all;
}

void Ranks::fail_everywhere(const std::string& message) {
  agreed_failure_ = true;
  if (rank_ != 0) throw PeerFailure(message);
  throw Error(message);
}

}  // namespace stereo::parallel
