// The Controls panel. Its widgets are built from the registry's tables (ViewerState::params),
// so a new method or backend option appears here without viewer code.

#include "app/view/controls.h"

#include <imgui_stdlib.h>

#include <cstdio>
#include <string>
#include <vector>


namespace stereo::view {

std::string float_text(float v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", double(v));
  return text;
}

namespace {

// A combo over `names`; returns the one picked this frame, if any.
std::optional<std::string> combo(const char* label, const std::string& current, const std::vector<std::string>& names,
                                 const std::vector<std::string>& notes = {}) {
  std::optional<std::string> picked;
  if (ImGui::BeginCombo(label, current.c_str())) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string text = names[i] + (i < notes.size() && !notes[i].empty() ? "  (" + notes[i] + ")" : "");
      if (ImGui::Selectable(text.c_str(), names[i] == current) && names[i] != current) picked = names[i];
    }
    ImGui::EndCombo();
  }
  return picked;
}

void param_widget(const ParamRow& row, UiState& ui) {
  ImGui::PushID(row.key.c_str());
  const char* label = row.key.c_str();
  if (!row.choices.empty()) {
    if (auto v = combo(label, row.value.is_string() ? row.value.get<std::string>() : row.value.dump(), row.choices))
      ui.pending.push_back(Change::param(row.key, *v));
  } else if (row.value.is_boolean()) {
    bool v = row.value.get<bool>();
    if (ImGui::Checkbox(label, &v)) ui.pending.push_back(Change::param(row.key, v ? "true" : "false"));
  } else if (row.value.is_number_integer()) {
    int v = row.value.get<int>();
    if (ImGui::InputInt(label, &v, 1, 10, ImGuiInputTextFlags_EnterReturnsTrue))
      ui.pending.push_back(Change::param(row.key, std::to_string(v)));
  } else if (row.value.is_number()) {
    float v = row.value.get<float>();
    if (ImGui::InputFloat(label, &v, 0.0f, 0.0f, "%.6g", ImGuiInputTextFlags_EnterReturnsTrue))
      ui.pending.push_back(Change::param(row.key, float_text(v)));
  } else {
    ImGui::Text("%s = %s", label, row.value.dump().c_str());
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", row.doc.c_str());
  ImGui::PopID();
}

void sequence_controls(const ViewerState& state, UiState& ui) {
  const ViewInput& in = state.input();
  if (!in.is_sequence()) return;
  ImGui::Separator();
  if (ImGui::Button(ui.playing ? "Pause" : "Play")) ui.playing = !ui.playing;
  ImGui::SameLine();
  if (ImGui::Button("Step")) {
    ui.playing = false;
    ui.pending.push_back(Change::frame(long((in.frame() + 1) % in.frame_count())));
  }
  ImGui::SameLine();
  ImGui::Checkbox("loop", &ui.loop);
  int frame = int(in.frame());
  if (ImGui::SliderInt("frame", &frame, 0, int(in.frame_count()) - 1) && frame != int(in.frame()))
    ui.pending.push_back(Change::frame(frame));
  ImGui::Text("%s", in.current().name.c_str());
}

}  // namespace

void draw_controls(const ViewerState& state, UiState& ui, ImVec2 pos) {
  ImGui::SetNextWindowPos(pos, ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(372.0f, 600.0f), ImGuiCond_FirstUseEver);
  ImGui::Begin("Controls");
  ImGui::PushItemWidth(170.0f);  // room for the longest keys beside their fields
  if (!state.error().empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.35f, 0.3f, 1.0f));
    ImGui::TextWrapped("%s", state.error().c_str());
    ImGui::PopStyleColor();
  }
  if (!ui.status.empty()) ImGui::TextWrapped("%s", ui.status.c_str());
  ImGui::TextWrapped("%s", state.input().description().c_str());
  const Choice& c = state.choice();
  if (auto m = combo("method", c.method, ViewerState::methods())) ui.pending.push_back(Change::method(*m));
  std::vector<std::string> notes;
  for (const std::string& b : state.backends()) notes.push_back(ui.unavailable[c.method + "/" + b]);
  if (auto b = combo("backend", c.backend, state.backends(), notes)) ui.pending.push_back(Change::backend(*b));
  const DisparityRange range = state.range();
  int levels = range.count;
  if (ImGui::InputInt("levels", &levels, 1, 16, ImGuiInputTextFlags_EnterReturnsTrue))
    ui.pending.push_back(Change::levels(levels));
  int min_d = range.min;
  if (ImGui::InputInt("min disparity", &min_d, 1, 8, ImGuiInputTextFlags_EnterReturnsTrue))
    ui.pending.push_back(Change::min_disparity(min_d));
  bool cost = state.cost_volume();
  if (ImGui::Checkbox("cost curve", &cost)) ui.pending.push_back(Change::cost_volume(cost));
  ImGui::SameLine();
  bool passes = ui.show_inspector;
  if (ImGui::Checkbox("pass inspector", &passes)) {
    ui.show_inspector = passes;
    if (passes != state.passes()) ui.pending.push_back(Change::passes(passes));
  }
  ImGui::SameLine();
  ImGui::Checkbox("views", &ui.show_views);
  if (!ui.test_layout) ImGui::SliderFloat("zoom", &ui.zoom, 0.25f, 4.0f, "%.2f");
  sequence_controls(state, ui);
  ImGui::Separator();
  ImGui::TextUnformatted("Parameters (hover for the source; Enter applies)");
  // The parameters scroll in their own region above the Open / Screenshot rows, so that those
  // stay in view however many parameters and backend options the method has (AD-Census's
  // pushed them below the panel's edge).
  const float footer = ImGui::GetStyle().ItemSpacing.y + 3.0f * ImGui::GetFrameHeightWithSpacing();
  ImGui::BeginChild("parameters", ImVec2(0.0f, -footer));
  bool options_heading = false;
  for (const ParamRow& row : state.params()) {
    if (row.backend_option && !options_heading) {
      ImGui::TextDisabled("%s backend options", c.backend.c_str());
      options_heading = true;
    }
    param_widget(row, ui);
  }
  ImGui::EndChild();
  ImGui::Separator();
  ImGui::InputText("left / scene", &ui.open_a);
  ImGui::InputText("right", &ui.open_b);
  if (ImGui::Button("Open")) ui.pending.push_back(Change::open(ui.open_a, ui.open_b));
  ImGui::SameLine();
  if (ImGui::Button("Screenshot (F12)")) ui.screenshot_requested = true;
  ImGui::PopItemWidth();
  ImGui::End();
}

}  // namespace stereo::view
