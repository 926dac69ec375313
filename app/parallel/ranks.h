#pragma once
/// \file app/parallel/ranks.h
/// Several hosts through MPI, an existing engine (Open MPI, MPICH, Slurm's srun): when
/// `stereo stream` or `stereo eval` is started by mpirun or srun, every rank takes its share
/// of the frames or scenes and rank 0 gathers the summary with MPI collectives. Started
/// without a launcher, or in a build without MPI (STEREO_WITH_MPI), the run is a world of one
/// rank and no MPI call is made, so the single-process path stays as it was.
///
/// Failures: every rank brackets its work with agree(), a collective that every rank reaches
/// whether its work succeeded or threw, so a failing rank never leaves the others waiting.
/// When any rank failed, rank 0 throws the first failing rank's error (naming the rank) and
/// the others throw PeerFailure (the CLI exits 1 without a second line). An exception that
/// leaves a Ranks object without passing through agree() aborts the whole job (MPI_Abort):
/// the other ranks may be inside a collective this rank will never reach.

#include <cstddef>
#include <exception>
#include <string>
#include <vector>

#include "core/error.h"

namespace stereo::parallel {

/// What a rank throws when another rank failed: rank 0 reports that failure; this rank says
/// nothing more and exits non-zero.
class PeerFailure : public Error {
 public:
  using Error::Error;
};

/// True when an MPI launcher started this process (mpirun/mpiexec of Open MPI or MPICH, or
/// srun with a PMI plugin): its environment names a rank. (srun without one starts independent
/// processes: Ranks refuses to run as one of several such tasks.)
bool launched_by_mpi();

/// The ranks of this run: MPI's world when launched by mpirun or srun in an MPI build, else
/// this process alone. One per process, made by the command before any of its work.
class Ranks {
 public:
  /// Initialises MPI (MPI_THREAD_FUNNELED: only this thread calls MPI; the device pool's
  /// workers do not). Throws stereo::Error naming `command` when the launcher started several
  /// ranks but this build has no MPI (each would do the whole run and write the same files).
  explicit Ranks(const std::string& command);
  ~Ranks();
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  /// This rank's index among the ranks on its host (MPI_Comm_split_type shared): the GPU a
  /// rank takes when one rank runs per GPU.
  [[nodiscard]] int local_rank() const { return local_rank_; }
  [[nodiscard]] const std::string& host() const { return host_; }
  /// True with more than one rank.
  [[nodiscard]] bool spread() const { return size_ > 1; }

  /// Collective: every rank passes what its part threw (nullptr when it succeeded) and a
  /// payload. Returns every rank's payload, in rank order, when all succeeded; otherwise
  /// throws on every rank (see the file comment). With one rank: rethrows `error` as it is.
  std::vector<std::string> agree(const std::exception_ptr& error, const std::string& payload = {});
  /// Throws on every rank, when every rank found the same fault: Error(message) on rank 0,
  /// PeerFailure elsewhere. Call it on every rank alike.
  [[noreturn]] void fail_everywhere(const std::string& message);
  /// Collective: returns when every rank reached it (the start line of a timed run).
  void barrier();
  /// Collective: every rank's text, in rank order, on rank 0; an empty list elsewhere.
  std::vector<std::string> gather(const std::string& text);
  /// Says that no collective follows: from here an exception leaves as in one process (the
  /// other ranks wait for this one only in MPI_Finalize, which the destructor still calls).
  void no_more_collectives() { collectives_done_ = true; }

 private:
  /// Every rank's text, in rank order: on every rank, or on rank 0 only (an empty list elsewhere).
  std::vector<std::string> collect(const std::string& text, bool everywhere);

  std::string command_;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  std::string host_;
  bool initialised_ = false;  // MPI_Init ran here
  int exceptions_at_start_ = 0;
  bool agreed_failure_ = false;  // agree() or fail_everywhere() threw: every rank knows
  bool collectives_done_ = false;
};

/// Items 0 .. count-1 as `stream` shares them: rank r takes the contiguous block
/// [count r / size, count (r+1) / size), sizes differing by at most one. Blocks need no
/// message while timing (each rank knows its frames), and each rank reads its files in order.
std::vector<std::size_t> block_of(std::size_t count, int rank, int size);

/// Items 0 .. count-1 as `eval` shares them: rank r takes r, r + size, ... Scenes differ in
/// size and come sorted by dataset, so interleaving spreads the large ones over the ranks.
std::vector<std::size_t> interleaved_of(std::size_t count, int rank, int size);

}  // namespace stereo::parallel
