#pragma once
/// \file methods/esaw/cuda/stages.h
/// The ESAW and ESMP kernels on the GPU (Yu et al., TCSVT 2010, Sec. IV), one .cu per kernel,
/// named as in reference/esaw.h so a test can compare each with its CPU twin:
///
///   rgb2grey.cu          rgb2grey           RGBA for the weights + integer BT.601 luma
///   rgb2lab8.cu          rgb2lab8           colour=lab8: the weights' guide in 8-bit CIELab
///   init_cost.cu         init_cost          eq. 3 on a slab of disparity planes
///   aggr_h.cu            aggr_H (+)         eq. 5 (ESMP: eq. 14), a slab of planes per launch;
///                                           aggr_H+ also runs the min-sum's forward pass
///   aggr_v.cu            aggr_V (+)         eq. 6 (eq. 16); optionally the WTA fused in
///   select_disparity.cu  wta_reset, select_disparity   eq. 7 as a running arg-min over slabs
///   cost2msg.cu          cost2msg           eq. 17-21, one thread per pixel over all levels
///                        cost2msg_backward  the paper's cost2msg-: eq. 20-21 after aggr_H+/aggr_V+
///   init_aggr_h.cu       init_aggr_H        ESAW: init_cost fused into the first aggr_H
///   aggr_hv.cu           aggr_HV, init_aggr_HV   ESAW: aggr_H then aggr_V of one iteration in
///                                           one launch, the H result in shared memory
///   aggr_vh.cu           aggr_VH            ESAW: aggr_V then the next iteration's aggr_H in one
///                                           launch, a whole row's V result in shared memory
///   aggr_msg.cu          aggr_msg           ESMP: cost2msg- folded into the next aggr_H+/aggr_V+
///   aggr_cost2msg.cu     aggr_cost2msg      ESMP: aggr_H+/aggr_V+ and its own cost2msg- in one
///                                           kernel, the forward values in shared memory
///   memory.cu            the weight tables; upload_volume, download_cells (tests)
///   esaw_cuda.cpp        the matchers ("esaw", "cuda") and ("esmp", "cuda")
///   esaw_inspect.cpp     the stage volumes kept for the pass inspector (keep_passes(true) only)
///
/// Layout and precision (NOTES.md): a cost volume is a stack of disparity planes, plane k
/// holding W x H IEEE half values row-major (index k * W * H + y * W + x), so both passes read
/// coalesced rows and a run of planes (a slab) is contiguous. Every kernel computes in fp32 and
/// rounds once when it stores, exactly as the reference does with Storage::fp16; the products
/// and sums are written with __fmul_rn / __fadd_rn so nvcc cannot contract them into FMAs the
/// reference does not make, and the weights' exp() terms come from tables the host fills with
/// the functions of methods/esaw/model.h, which the reference evaluates too. Every stage is
/// therefore bit-exact with the reference.
///
/// Delta_c (EsawParams::colour): max_rgb reads the RGBA image and a 256-entry colour table;
/// lab8 reads rgb2lab8's image and a table over the squared distance of two lab8 colours
/// (WeightTable::lab8_colour). The kernels take either guide image as `guide`.

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/common.h"
#include "methods/esaw/model.h"

namespace stereo::cu::esaw {

/// What a pass does with a sample outside the image (model.h).
using stereo::esaw::Border;

/// A stack of disparity planes of fp16 bits (std::uint16_t so host code needs no cuda_fp16.h).
struct DeviceVolume {
  int width = 0;
  int height = 0;
  int planes = 0;
  DeviceBuffer<std::uint16_t> data;

  DeviceVolume() = default;
  DeviceVolume(int w, int h, int n, const std::string& component, const std::string& what)
      : width(w), height(h), planes(n), data(make_device_buffer<std::uint16_t>(cells(w, h, n), component, what)) {}
  [[nodiscard]] static std::size_t cells(int w, int h, int n) {
    return static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(n);
  }
  [[nodiscard]] std::size_t plane_cells() const { return cells(width, height, 1); }
  [[nodiscard]] std::uint16_t* plane(int k) { return data.get() + plane_cells() * static_cast<std::size_t>(k); }
  [[nodiscard]] const std::uint16_t* plane(int k) const {
    return data.get() + plane_cells() * static_cast<std::size_t>(k);
  }
};

/// The exp() factors of the adaptive weight, filled on the host by the model's functions (the
/// ones reference/esaw.cpp sample_weights evaluates): spatial = esaw::spatial_factor(step,
/// gamma_p) and the colour factor esaw::colour_factor(Delta_c, gamma_c), looked up
///  - colour=max_rgb (lab8_colour null): in colour[dc], dc the largest channel difference of two
///    RGBA pixels (the kernels copy it to shared memory);
///  - colour=lab8: in lab8_colour[D], D = dL^2 + da^2 + db^2 of two rgb2lab8 pixels, a device
///    table of LAB8_SQUARED_DISTANCES floats (lab8_colour_table; 763 KB, read through the
///    read-only cache).
struct WeightTable {
  float colour[256];
  float spatial;
  const float* lab8_colour;
};
WeightTable weight_table(float gamma_c, float gamma_p, int step, const float* lab8_colour = nullptr);

/// The squared distances two lab8 colours can have: 0 .. 3 x 255^2 (model.h).
using stereo::esaw::LAB8_SQUARED_DISTANCES;
/// lab8's colour factors on the host: [D] = esaw::colour_factor(esaw::lab8_distance(D), gamma_c)
/// (model.h), the very floats the reference's weights use.
std::vector<float> lab8_colour_factors(float gamma_c);
/// The same, uploaded to the current device (synchronous; once per matcher, gamma_c is fixed).
DeviceBuffer<float> lab8_colour_table(float gamma_c, const std::string& component);

/// The running arg-min of eq. 7 over the slabs: the smallest stored cost so far and its
/// disparity (range.min + k). wta_reset starts it at +inf.
struct Winner {
  DeviceImage<float> cost;
  DeviceImage<float> disparity;
};

/// Eq. 3 on a slab of disparity planes: the grey pair (of one size), the slab's first disparity
/// and plane count (planes first_disparity, first_disparity + 1, ...), lambda and tau.
struct CostSlab {
  const DeviceImage<std::uint8_t>& grey_left;
  const DeviceImage<std::uint8_t>& grey_right;
  int first_disparity;
  int planes;
  float lambda;
  float tau;
};

/// The adaptive weights of a three-sample pass (eq. 5/6, ESMP eq. 14/16): the image they are
/// read from (`guide`, RGBA or rgb2lab8's), the sample step s, the exp() tables made for that
/// step, and what a sample outside the image does.
struct PassWeights {
  const DeviceImage<uchar4>& guide;
  int step;
  const WeightTable& table;
  Border border;
};

/// The volumes a three-sample pass reads: the centre sample's and the sides' (`planes` planes
/// each; they may be the same pointer).
struct PassInputs {
  const std::uint16_t* centre;
  const std::uint16_t* side;
  int planes;
};

/// Packs `raw` (1, 3 or 4 interleaved channels, W x H bytes each) to RGBA and writes its grey
/// luma (77 R + 150 G + 29 B + 128) >> 8 (a grey input is copied), as reference::rgb2grey.
void rgb2grey(const std::uint8_t* raw, int channels, DeviceImage<uchar4>& rgba, DeviceImage<std::uint8_t>& grey,
              cudaStream_t stream);

/// colour=lab8: the guide of the weights, rgb2grey's RGBA image in 8-bit CIELab
/// (reference::rgb2lab8): x = L* x 255/100, y = a* + 128, z = b* + 128, each rounded, w = 255.
/// Bit-exact with the reference for every colour (rgb2lab8.cu says why). lab8 may not alias rgba.
void rgb2lab8(const DeviceImage<uchar4>& rgba, DeviceImage<uchar4>& lab8, cudaStream_t stream);

/// Eq. 3 for the slab's `planes` disparities first_disparity, first_disparity + 1, ... into `out`
/// (planes x W x H), the match column clamped to the image as in the reference.
void init_cost(const CostSlab& cost, std::uint16_t* out, cudaStream_t stream);

/// ESMP's reorganisation (Sec. IV, aggr_H+ / aggr_V+): with it, an aggregation kernel stores
/// the forward pass of the min-sum of its output (eq. 17-19, each forward value rounded, as
/// reference::cost2msg does) instead of the output, and min + eta of the output per pixel in
/// `truncation`; cost2msg_backward (cost2msg-) finishes the messages. Needs all levels in one
/// launch (planes = the disparity count).
struct ForwardMinSum {
  float c = 1.0f;
  float eta = 0.0f;
  DeviceImage<float>* truncation = nullptr;
};

/// Eq. 5 on in.planes planes: out = w_c centre(p) + w_l side(p - s) + w_r side(p + s) along x,
/// weights from weights.guide (reference::aggr_H). centre and side may be the same pointer; out
/// must differ from both.
void aggr_H(const PassWeights& weights, const PassInputs& in, std::uint16_t* out, cudaStream_t stream,
            const ForwardMinSum* forward = nullptr);

/// ESAW's first pass: aggr_H over init_cost's planes first_disparity, ... (eq. 3 computed on the
/// fly, each sample rounded to half as stored), equal bit for bit to init_cost then aggr_H with
/// centre = side = C0; C0 is never stored.
void init_aggr_H(const CostSlab& cost, const PassWeights& weights, std::uint16_t* out, cudaStream_t stream);

/// The largest step aggr_HV takes: its block re-reads and re-aggregates 2 x step rows around a
/// tile of 16, and holds them in shared memory (61.4 KB at 16).
constexpr int HV_MAX_STEP = 16;

/// The largest step aggr_HV runs on the current device: HV_MAX_STEP, or less where a block's
/// shared memory is smaller (Turing: 64 KB, step 16 fits).
int aggr_hv_max_step();

/// One ESAW iteration in one launch: aggr_H (centre = side = in) then aggr_V with the same step,
/// the H result kept in shared memory and never stored; equal bit for bit to the two kernels.
/// step <= HV_MAX_STEP; out must differ from in.
void aggr_HV(const PassWeights& weights, const std::uint16_t* in, int planes, std::uint16_t* out, cudaStream_t stream);
/// The same with init_cost fused in (iteration 1): equal bit for bit to init_aggr_H then aggr_V.
void init_aggr_HV(const CostSlab& cost, const PassWeights& weights, std::uint16_t* out, cudaStream_t stream);

/// ESAW: aggr_V of one iteration (weights `v`) then aggr_H of the next (weights `h`) in one
/// launch (aggr_vh.cu): a block owns a whole row, so the H pass reads the V result of its row
/// from shared memory and the V result is never stored; equal bit for bit to aggr_V then aggr_H
/// (centre = side each time). Runs where aggr_VH_fits: an even width of at most 8192, fewer than
/// 2^32 cells, 16 B a column of shared memory. out must differ from in.
bool aggr_VH_fits(int width, int height, int planes);
void aggr_VH(const PassWeights& v, const PassWeights& h, const std::uint16_t* in, int planes, std::uint16_t* out,
             cudaStream_t stream);

/// Eq. 6, along y (reference::aggr_V). With `winner`, the stored (rounded) value of every plane
/// also updates the running arg-min, plane 0 being disparity first_disparity; out may then be
/// null (the WTA fused into the last pass, so the last volume is never written).
void aggr_V(const PassWeights& weights, const PassInputs& in, std::uint16_t* out, Winner* winner, int first_disparity,
            cudaStream_t stream, const ForwardMinSum* forward = nullptr);

/// Sets winner.cost to +inf (and the disparity to +inf) before the first slab.
void wta_reset(Winner& winner, cudaStream_t stream);
/// Eq. 7 over `planes` planes starting at disparity first_disparity: a plane's cost replaces
/// the winner only when strictly smaller, so over increasing disparities the first wins a tie.
void select_disparity(const std::uint16_t* volume, int width, int height, int planes, int first_disparity,
                      Winner& winner, cudaStream_t stream);

/// Eq. 17-21 for every pixel over all `levels` planes of `in` (reference::cost2msg); the
/// forward values (rounded to half, as the reference rounds them) stay in shared memory.
void cost2msg(const std::uint16_t* in, int width, int height, int levels, float c, float eta, std::uint16_t* out,
              cudaStream_t stream);

/// ESMP's first cost2msg with init_cost folded in: eq. 3 for the slab's disparities
/// first_disparity, ... (its planes are all the levels) computed on the fly (each cost rounded
/// to half as stored), then eq. 17-21; equal bit for bit to init_cost then cost2msg, without
/// storing C0. `pairs`: two pixels a thread where the width is even and the height at most 65535
/// (fewer instructions a cell; the same values).
void init_cost2msg(const CostSlab& cost, float c, float eta, std::uint16_t* out, cudaStream_t stream,
                   bool pairs = true);

/// cost2msg- (Sec. IV): the backward pass and truncation (eq. 20-21) over forward values an
/// aggr_H+/aggr_V+ stored, with their min + eta; one thread per pixel, no shared memory.
void cost2msg_backward(const std::uint16_t* forward, const DeviceImage<float>& truncation, int levels, float c,
                       std::uint16_t* out, cudaStream_t stream);

/// ESMP's aggr_H+ (vertical = false) or aggr_V+ and the cost2msg- after it in one kernel
/// (aggr_cost2msg.cu): reads the messages (in.centre == in.side, in.planes levels), aggregates
/// them (eq. 14 / 16) and writes the messages of the result (eq. 17-21) to `out`, the forward
/// values held in shared memory; equal bit for bit to aggr_H+/aggr_V+ then cost2msg_backward.
/// Runs where aggr_cost2msg_fits: an even width, fewer than 2^32 cells, levels x 256 B of shared
/// memory a block. half_forward: eq. 18-19 in half2 arithmetic where c is a half (the same
/// values).
bool aggr_cost2msg_fits(int width, int height, int levels);
void aggr_cost2msg(const PassWeights& weights, bool vertical, const PassInputs& in, float c, float eta,
                   std::uint16_t* out, cudaStream_t stream, bool half_forward = false);

/// The messages between ESMP's folded passes: the forward min-sum values of `levels` planes
/// (eq. 17-19, as aggr_H+/aggr_V+ or aggr_msg store them) and their min + eta per pixel.
struct ForwardMessages {
  const std::uint16_t* forward;
  const DeviceImage<float>& truncation;
  int levels;
};

/// What aggr_msg writes: the forward min-sum of its output and its truncation map, or, with
/// `winner`, only the arg-min over all levels (plane 0 = first_disparity).
struct MessageOutputs {
  std::uint16_t* forward = nullptr;
  DeviceImage<float>* truncation = nullptr;
  Winner* winner = nullptr;
  int first_disparity = 0;
};

/// ESMP's pass with cost2msg- folded in (NOTES.md): reads the forward values and truncations
/// an aggr_H+/aggr_V+ (or an earlier aggr_msg) stored, finishes the messages of the three samples
/// on the way down the levels (eq. 20-21, each message rounded to half as cost2msg- stores it),
/// aggregates them along x (vertical = false, eq. 14) or y (eq. 16), and stores the forward
/// min-sum of the output and its min + eta (as aggr_H+/aggr_V+). With `winner` it writes only
/// the arg-min over all `levels` (eq. 7, plane 0 = first_disparity; the winner's previous
/// contents are not read). Equal, bit for bit, to cost2msg_backward followed by aggr_H+/aggr_V+
/// (or aggr_V with the winner). Outputs may not alias inputs; levels x 128 B of shared memory.
void aggr_msg(const PassWeights& weights, bool vertical, const ForwardMessages& in, float c, float eta,
              const MessageOutputs& out, cudaStream_t stream);

// ---- tests and set-up (synchronous) ----
/// Host floats in the planes' layout (index k * W * H + y * W + x, `planes` of them), each a
/// half value, as fp16 planes on the device; and back. The fp16 conversion lives here so that
/// host code needs no cuda_fp16.h; the tests convert the reference's volumes
/// (methods/esaw/tests/cuda_stage_util.h).
DeviceVolume upload_volume(int width, int height, int planes, const std::vector<float>& cells);
std::vector<float> download_cells(const DeviceVolume& volume);

}  // namespace stereo::cu::esaw
