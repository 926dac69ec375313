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

#include <filesystem>
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
};

/// The dump of `matcher.inspector()` (after a run with keep_passes(true)) into `dir`, which must
/// not exist or be empty, in a folder that exists. Everything is written into a temporary
/// folder beside it, renamed to `dir` at the end: on an error nothing is left. `range`, the
/// run's, leaves out the channels of a last RGBA quad past range.max() (a quad's unused
/// channels hold costs no later pass reads). Throws stereo::Error (invalid_argument for a
/// matcher with no kept passes or a bad `dir`).
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
