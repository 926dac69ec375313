// `stereo passes`: what `stereo view`'s pass inspector shows, without a window.

#include "app/cli/passes_command.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/method_choice.h"
#include "app/image_io.h"
#include "app/passes.h"
#include "core/disparity_range.h"
#include "core/validate.h"
#include "methods/builtin.h"

namespace stereo::cli {
namespace {

struct PassesArgs {
  std::string left, right, out;
  std::vector<std::string> stages;
  int levels = 64;
  int min_disparity = 0;
  MethodChoice choice;
};

void cmd_passes(const PassesArgs& a) {
  const DisparityRange range{a.min_disparity, a.levels};
  const ImageU8 left = to_rgb(read_image(a.left));
  const ImageU8 right = to_rgb(read_image(a.right));
  validate_pair(left, right, range, "passes");
  auto matcher = create_matcher(a.choice.method, a.choice.backend, a.choice.overrides());
  matcher->keep_passes(true);
  print_params(a.choice.method, a.choice.backend, *matcher, a.choice.preset());
  matcher->compute(left, right, range);
  PassDumpOptions options;
  options.range = range;
  options.stages = a.stages;
  options.announce = [&](const PassDumpSize& size) {
    std::cout << "passes: writing " << size.passes << " of " << size.passes_kept << " passes, "
              << describe_size(size) << " into " << a.out << std::endl;
  };
  const PassDump dump = dump_passes(*matcher, a.out, options);
  std::cout << dump.passes << " passes, " << dump.files.size() << " files in " << dump.dir.string()
            << " (layouts in passes.json)\n";
}

}  // namespace

void add_passes_command(CLI::App& app) {
  auto args = std::make_shared<PassesArgs>();
  auto* p = app.add_subcommand("passes", "run once and write every pass or stage the backend keeps (the pass "
                                         "inspector of `stereo view`) as PNG and PFM into a folder");
  p->add_option("LEFT", args->left, "left (reference) image")->required();
  p->add_option("RIGHT", args->right, "right image")->required();
  args->choice.add_to(p);
  p->add_option("-d,--levels", args->levels, "number of disparities searched: MIN .. MIN+LEVELS-1")->capture_default_str();
  p->add_option("--min-disparity", args->min_disparity, "smallest disparity searched (may be negative)")
      ->capture_default_str();
  p->add_option("--stage", args->stages,
                "write only the passes whose name or stage (the name up to its first '.') matches this shell "
                "pattern (repeatable; e.g. --stage SD --stage 'CA.*'); default: every pass");
  p->add_option("--out", args->out, "folder to create (must not exist or be empty): <pass>_d<first>-<last>.png, "
                                    "<pass>_d<disp>.pfm, passes.json")
      ->required();
  p->callback([args] { cmd_passes(*args); });
}

}  // namespace stereo::cli
