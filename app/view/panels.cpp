// The image panels: the views, the disparity map with its scale bar, the error map with
// `eval`'s figures, the timing, the cursor readout and the pass inspector. The controls are in
// app/view/controls.cpp.

#include "app/view/panels.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "app/measure.h"
#include "app/view/controls.h"

namespace stereo::view {

namespace {

ImTextureID id_of(const gl::Texture& t) { return reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(t.id())); }

constexpr float PANEL_GAP = 8.0f;
constexpr float CONTROLS_WIDTH = 380.0f;    // the controls column
constexpr float SIDE_WIDTH = 400.0f;        // the cursor and pass inspector column, at its narrowest
constexpr float IMAGE_ROWS_EXTRA = 220.0f;  // titles, scale bar, figures and legend around two image rows

// An image panel's picture at the zoom, on whole pixels (so that 1:1 is texel for pixel); the
// cursor readout follows the mouse over it where `cursor` (pictures of the pair's size). Returns
// where it was drawn.
PixelRect draw_image(const gl::Texture& t, UiState& ui, float zoom, bool cursor = true) {
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::SetCursorScreenPos(ImVec2(std::floor(at.x), std::floor(at.y)));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 size(std::floor(float(t.width()) * zoom), std::floor(float(t.height()) * zoom));
  ImGui::Image(id_of(t), size);
  if (cursor && ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const int x = int((m.x - origin.x) / zoom), y = int((m.y - origin.y) / zoom);
    if (x >= 0 && y >= 0 && x < t.width() && y < t.height()) ui.cursor = std::make_pair(x, y);
  }
  return {int(origin.x), int(origin.y), int(size.x), int(size.y)};
}

void begin_panel(const char* title, ImVec2 pos, ImGuiWindowFlags flags = 0) {
  ImGui::SetNextWindowPos(pos, ImGuiCond_FirstUseEver);
  ImGui::Begin(title, nullptr, flags | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_HorizontalScrollbar);
}

void draw_disparity(const ViewResult& r, PanelTextures& tex, UiState& ui, ImVec2 pos) {
  if (ui.test_layout) {
    // Alone at the window's corner, no title, no padding, 1:1: the read-back of these pixels
    // is compared with `stereo run --color`.
    ImGui::SetNextWindowPos(ImVec2(0.0f, 0.0f));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0.0f, 0.0f));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
    ImGui::Begin("Disparity", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoBackground |
                                           ImGuiWindowFlags_NoMove | ImGuiWindowFlags_AlwaysAutoResize |
                                           ImGuiWindowFlags_NoBringToFrontOnFocus);
    ui.disparity_rect = draw_image(tex.disparity(), ui, 1.0f);
    ImGui::End();
    ImGui::PopStyleVar(2);
    return;
  }
  begin_panel("Disparity", pos);
  ui.disparity_rect = draw_image(tex.disparity(), ui, ui.zoom);
  // The scale bar: one column per level, stretched to the map's width.
  const ImVec2 bar(float(ui.disparity_rect.width), float(SCALE_BAR_HEIGHT));
  ImGui::Image(id_of(tex.scale_bar()), bar);
  ImGui::Text("%d", r.range.min);
  ImGui::SameLine(std::max(0.0f, bar.x - 40.0f));
  ImGui::Text("%d px", r.range.max());
  ImGui::TextDisabled("black: no disparity");
  ImGui::End();
}

void draw_error(const ViewResult& r, PanelTextures& tex, UiState& ui, ImVec2 pos) {
  begin_panel("Error", pos);
  // The text wraps at the map's width, so the panel stays in the map's column.
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::max(320.0f, float(r.width) * ui.zoom));
  if (r.metrics) {
    const Metrics& m = *r.metrics;
    ImGui::TextWrapped("bad pixels (%%), |d - gt| > %.1f px, as `eval` scores them (submitted)%s:", m.threshold,
                       r.error_on_device ? ", scored on the GPU beside the interop map" : "");
    ImGui::Text("nonocc %s   all %s   disc %s", cli::fmt(m.bad_nonocc).c_str(), cli::fmt(m.bad_all).c_str(),
                cli::fmt(m.bad_disc).c_str());
    ImGui::Text("average error %s px   density %s %%", cli::fmt(m.avg_error).c_str(), cli::fmt(m.density).c_str());
    if (tex.has_error_map()) draw_image(tex.error_map(), ui, ui.zoom);
    ImGui::TextWrapped("grey: correct, red: bad (non-occluded), orange: bad (occluded), black: no ground truth");
  } else if (!r.no_figures.empty()) {
    ImGui::TextWrapped("The map stayed on the GPU (CUDA-GL interop): %s.", r.no_figures.c_str());
  } else {
    ImGui::TextWrapped("No ground truth for this pair (--gt GT, or a scene folder).");
  }
  ImGui::PopTextWrapPos();
  ImGui::End();
}

void draw_timing(const ViewResult& r, ImVec2 pos) {
  ImGui::SetNextWindowPos(pos, ImGuiCond_FirstUseEver);
  // Down to the window's bottom edge (1000 px at the default size: 390 px), at least 300.
  const float height = std::max(300.0f, ImGui::GetIO().DisplaySize.y - pos.y);
  ImGui::SetNextWindowSize(ImVec2(372.0f, height), ImGuiCond_FirstUseEver);
  ImGui::Begin("Timing");
  ImGui::TextWrapped("%s", r.device.c_str());
  ImGui::TextWrapped("%dx%d, disparities %s (%d levels); %s", r.width, r.height, cli::range_text(r.range).c_str(),
                     r.range.count, r.timing.clock.c_str());
  ImGui::Text("upload    %8.3f ms", r.timing.upload_ms);
  // The stages scroll in their own region above the totals, so that the total and the Mde/s
  // stay in view for a method of many stages (AD-Census's ten hid them).
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const int summary_lines = 6 + (r.error_on_device ? 1 : 0) + (r.error_on_device && r.figures_upload_ms > 0.0 ? 1 : 0);
  ImGui::BeginChild("stages", ImVec2(0.0f, -(float(summary_lines) * line + ImGui::GetStyle().ItemSpacing.y)));
  for (const auto& [name, ms] : r.timing.stages) ImGui::Text("  %-14s %8.3f ms", name.c_str(), ms);
  ImGui::EndChild();
  ImGui::Text("algorithm %8.3f ms", r.timing.algorithm_ms);
  ImGui::Text("read-back %8.3f ms%s", r.timing.readback_ms, r.on_device ? " (into the GL buffer, on the GPU)" : "");
  if (r.error_on_device) ImGui::Text("figures   %8.3f ms (eval's, on the GPU, host clock)", r.figures_ms);
  if (r.error_on_device && r.figures_upload_ms > 0.0)
    ImGui::Text("  + scene %8.3f ms (its ground truth and masks, once)", r.figures_upload_ms);
  ImGui::Text("total     %8.3f ms", r.timing.total_ms());
  ImGui::TextWrapped("%.1f Mde/s including upload and read-back, %.1f Mde/s algorithm",
              cli::mdes(r.width, r.height, r.range.count, r.timing.total_ms()),
              cli::mdes(r.width, r.height, r.range.count, r.timing.algorithm_ms));
  ImGui::Text("window: %.1f frames/s", double(ImGui::GetIO().Framerate));
  ImGui::End();
}

void draw_cursor(const ViewerState& state, const ViewResult& r, PanelTextures& tex, const UiState& ui, ImVec2 pos) {
  // Tall enough from the first frame for the position and ground-truth lines and the two-line
  // cost-curve hint: an auto-resizing panel grows a frame after its content, so a screenshot
  // taken as the cursor first appears cut the ground truth off.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float min_height = ImGui::GetFrameHeight() + 2.0f * style.WindowPadding.y +
                           4.0f * ImGui::GetTextLineHeightWithSpacing();
  ImGui::SetNextWindowSizeConstraints(ImVec2(380.0f, min_height), ImVec2(380.0f, FLT_MAX));
  begin_panel("Cursor", pos);
  if (!ui.cursor) {
    ImGui::TextUnformatted("Move the mouse over an image.");
    ImGui::End();
    return;
  }
  const auto [x, y] = *ui.cursor;
  const std::optional<float> d = tex.disparity_at(r, x, y);
  ImGui::Text("x %d  y %d  disparity %s", x, y, d && std::isfinite(*d) ? cli::fmt(double(*d), 2).c_str() : "none");
  const Scene& s = state.input().current();
  if (s.has_ground_truth() && x < s.gt.width && y < s.gt.height) {
    const float g = s.gt.at(x, y);
    ImGui::Text("ground truth %s", std::isfinite(g) ? cli::fmt(double(g), 2).c_str() : "unknown");
  }
  if (r.dsi && x < r.dsi->width && y < r.dsi->height) {
    const DisparitySpaceImage& v = *r.dsi;
    std::vector<float> curve(std::size_t(v.range.count));
    for (int k = 0; k < v.range.count; ++k)
      curve[std::size_t(k)] = v.data[(std::size_t(k) * std::size_t(v.height) + std::size_t(y)) * std::size_t(v.width) +
                                     std::size_t(x)];
    ImGui::TextWrapped("cost over d = %d..%d (%s is better): %s", v.range.min, v.range.max(), v.better.c_str(),
                       v.meaning.c_str());
    ImGui::PlotLines("##cost", curve.data(), int(curve.size()), 0, nullptr, FLT_MAX, FLT_MAX, ImVec2(360.0f, 120.0f));
  } else if (state.cost_volume()) {
    ImGui::TextUnformatted("No cost volume in the last run.");
  } else {
    ImGui::TextWrapped("Cost curve: tick \"cost curve\" in Controls (backends with a cost volume).");
  }
  ImGui::End();
}

void draw_inspector(const ViewerState& state, PanelTextures& tex, UiState& ui, ImVec2 pos) {
  ImGui::SetNextWindowSizeConstraints(ImVec2(360.0f, 0.0f), ImVec2(FLT_MAX, FLT_MAX));
  begin_panel("Passes", pos);
  PassInspector* inspector = state.inspector();
  if (inspector == nullptr) {
    ImGui::TextWrapped("%s", state.passes_note().empty() ? "No passes kept yet." : state.passes_note().c_str());
    ImGui::End();
    return;
  }
  const std::vector<PassLayout> passes = inspector->passes();
  if (passes.empty()) {
    ImGui::TextUnformatted("No passes in the last run.");
    ImGui::End();
    return;
  }
  ui.pass = std::clamp(ui.pass, 0, int(passes.size()) - 1);
  if (ImGui::BeginCombo("pass", passes[std::size_t(ui.pass)].name.c_str())) {
    for (int i = 0; i < int(passes.size()); ++i)
      if (ImGui::Selectable(passes[std::size_t(i)].name.c_str(), i == ui.pass)) ui.pass = i;
    ImGui::EndCombo();
  }
  const PassLayout& p = passes[std::size_t(ui.pass)];
  ImGui::TextWrapped("%s; %s, %dx%d x %d channel(s), %d slice(s)", p.what.c_str(), p.storage.c_str(), p.width,
                     p.height, p.channels, p.slices);
  ui.slice = std::clamp(ui.slice, 0, p.slices - 1);
  ui.channel = std::clamp(ui.channel, 0, p.channels - 1);
  if (p.slices > 1) ImGui::SliderInt("slice", &ui.slice, 0, p.slices - 1);
  if (p.channels > 1) ImGui::SliderInt("channel", &ui.channel, 0, p.channels - 1);
  const std::string key = std::to_string(state.result()->serial) + "/" + p.name + "/" + std::to_string(ui.slice) +
                          "/" + std::to_string(ui.channel);
  if (key != ui.shown_slice) {
    ui.shown_slice = key;
    try {
      ui.slice_range = tex.show_pass(*inspector, p.name, ui.slice, ui.channel);
      ui.slice_error.clear();
    } catch (const std::exception& e) {
      ui.slice_error = e.what();  // the panel says why; the window goes on
    }
  }
  if (!ui.slice_error.empty()) {
    ImGui::TextWrapped("%s", ui.slice_error.c_str());
    ImGui::End();
    return;
  }
  ImGui::TextUnformatted(slice_title(p, ui.slice, ui.channel).c_str());
  ImGui::Text("grey from %g (black) to %g (white)", double(ui.slice_range.first), double(ui.slice_range.second));
  draw_image(tex.pass_slice(), ui, ui.zoom, false);  // a pass may hold another size (crossrt's half scale)
  ImGui::End();
}

}  // namespace

std::string slice_title(const PassLayout& pass, int slice, int channel) {
  std::string title = pass.label(slice);
  if (pass.channels > 1) {
    title += ", channel " + std::to_string(channel);
    const int d = pass.disparity(slice, channel);
    if (d >= 0 && pass.disparities_per_slice > 1) title += " (disparity " + std::to_string(d) + ")";
  }
  return title;
}

float fitting_zoom(int image_w, int image_h, int window_w, int window_h) {
  // Two image columns beside the controls and the side column (cursor, passes); two image rows
  // with the panels' titles, the scale bar and the error figures between them.
  const float free_w = float(window_w) - CONTROLS_WIDTH - SIDE_WIDTH - 6.0f * PANEL_GAP;
  const float free_h = float(window_h) - IMAGE_ROWS_EXTRA;
  const float fit = std::min(free_w / (2.0f * float(std::max(image_w, 1))), free_h / (2.0f * float(std::max(image_h, 1))));
  return std::clamp(std::floor(fit * 8.0f) / 8.0f, 0.125f, 1.0f);
}

void draw_panels(const ViewerState& state, PanelTextures& textures, UiState& ui) {
  ui.cursor.reset();
  const ViewResult* r = state.result();
  const float w = r ? float(r->width) * (ui.test_layout ? 1.0f : ui.zoom) : 320.0f;
  const float h = r ? float(r->height) * (ui.test_layout ? 1.0f : ui.zoom) : 240.0f;
  // Columns: the controls, then the images; the test layout keeps x < width for the map alone.
  const float x0 = ui.test_layout ? w + PANEL_GAP : 0.0f;
  const float x1 = ui.test_layout ? x0 : CONTROLS_WIDTH;
  draw_controls(state, ui, ImVec2(x0, 0.0f));
  if (r == nullptr) return;
  draw_disparity(*r, textures, ui, ImVec2(x1, 0.0f));
  if (ui.show_views) {
    begin_panel("Left", ImVec2(x1 + w + PANEL_GAP * 3, 0.0f));
    draw_image(textures.left(), ui, ui.zoom);
    ImGui::End();
    begin_panel("Right", ImVec2(x1 + w + PANEL_GAP * 3, h + 80.0f));
    draw_image(textures.right(), ui, ui.zoom);
    ImGui::End();
  }
  draw_error(*r, textures, ui, ImVec2(x1, h + 110.0f));
  draw_timing(*r, ImVec2(0.0f, 610.0f));
  draw_cursor(state, *r, textures, ui, ImVec2(x1 + 2 * (w + PANEL_GAP * 3), 0.0f));
  if (ui.show_inspector) draw_inspector(state, textures, ui, ImVec2(x1 + 2 * (w + PANEL_GAP * 3), 260.0f));
}

}  // namespace stereo::view
