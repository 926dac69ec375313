#pragma once
/// \file app/passes.h
/// The pass inspector's work without a window (`stereo passes`, `stereo view --dump-passes`):
/// every pass or stage of a matcher's last run (core/inspect.h), slice by slice, as pictures
/// for people and raw values for programs.
///
/// In DIR, per pass and slice:
///   <pass>_d<first>-<last>.png  the slice normalised over the whole pass (every slice of a pass
///                               on one scale), each channel a panel labelled with its
///                               disparity, the slice's label (PassLayout::label) on top;
///                               non-finite values magenta. A plane: <pass>.png.
///   <pass>_d<disp>.pfm          one channel, the stored values as floats (PFM writes non-finite
///                               values as +inf). A plane: <pass>.pfm (<pass>_c<k>.pfm per
///                               channel when it has several).
///   passes.json                 the component, every layout, its value range and its files.
/// In file names, characters of a pass name other than letters, digits and "._+-" become '_'.
///
/// Every file is encoded before the first is written, so the dump can say how many files and
/// bytes it will write (PassDumpOptions::announce) and write exactly that; a stage filter
/// (PassDumpOptions::stages) keeps it to the passes asked for.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/disparity_range.h"
#include "core/image.h"
#include "core/inspect.h"
#include "core/matcher.h"

namespace stereo {

/// What a dump wrote.
struct PassDump {
  std::filesystem::path dir;
  int passes = 0;
  std::vector<std::string> files;  ///< names inside dir, passes.json last
  std::uintmax_t bytes = 0;        ///< the files' sizes together
};

/// What a dump will write, known before the first file is written.
struct PassDumpSize {
  int passes = 0;          ///< the passes the filter kept
  int passes_kept = 0;     ///< the passes the matcher kept
  std::size_t files = 0;   ///< passes.json included
  std::uintmax_t bytes = 0;
};

/// How to dump: which passes, which disparities, and whom to tell the size first.
struct PassDumpOptions {
  /// The run's range: leaves out the channels of a last RGBA quad past range.max() (a quad's
  /// unused channels hold costs no later pass reads).
  std::optional<DisparityRange> range;
  /// Shell-style patterns (`*`, `?`, `[...]`, fnmatch) on pass names; a pass is written when one
  /// matches its name or its stage (the name up to the first '.': "SD" selects "SD.left" and
  /// "SD.right"). Empty: every pass. A pattern that matches no pass is an error naming them.
  std::vector<std::string> stages;
  /// Called once with the size, after everything is encoded and before the first write.
  std::function<void(const PassDumpSize&)> announce;
};

/// Whether pass `name` is selected by `patterns` (PassDumpOptions::stages; empty selects all).
bool pass_selected(const std::string& name, const std::vector<std::string>& patterns);

/// "12 files, 3.4 MB (3400123 bytes)": a size as the dump announces it.
std::string describe_size(const PassDumpSize& size);

/// The dump of `matcher.inspector()` (after a run with keep_passes(true)) into `dir`, which must
/// not exist or be empty, in a folder that exists. Everything is written into a temporary
/// folder beside it, renamed to `dir` at the end: on an error nothing is left. Throws
/// stereo::Error (invalid_argument for a matcher with no kept passes, a bad `dir`, or a stage
/// pattern that matches no pass).
PassDump dump_passes(Matcher& matcher, const std::filesystem::path& dir, const PassDumpOptions& options);
/// Every pass, over `range` (PassDumpOptions::range), nothing announced.
PassDump dump_passes(Matcher& matcher, const std::filesystem::path& dir,
                     std::optional<DisparityRange> range = std::nullopt);

/// The PNG of one slice as dump_passes writes it: `slice` (layout.width x height x channels)
/// scaled so that [lo, hi] spans black to white, channels side by side, labelled. Channels
/// from `channels` on are left out.
ImageU8 render_slice(const PassLayout& layout, int slice, const ImageF& values, float lo, float hi, int channels);

/// The file names of slice `slice`'s PNG and of channel `channel`'s PFM.
std::string slice_png_name(const PassLayout& layout, int slice, int channels);
std::string channel_pfm_name(const PassLayout& layout, int slice, int channel);

}  // namespace stereo
