// SymStereo (logN) reference stages: plain loops, FFTW single precision for the transforms,
// double for the filter bank and the energies. See reference/symstereo.h for the pipeline.

#include "methods/symstereo/reference/symstereo.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>
#include <utility>

#include "core/error.h"
#include "methods/symstereo/model.h"
#include "methods/symstereo/params.h"
#include "core/thread_pool.h"
#include "reference/grey.h"

namespace stereo::reference {

static_assert(sizeof(Complex) == sizeof(fftwf_complex), "std::complex<float> is FFTW's complex layout");

namespace {
// FFTW's planner is not thread-safe (execution is); every plan made or destroyed here holds it.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

struct FftwPlan::Impl {
  int width = 0;
  int rows = 0;
  float* real = nullptr;
  fftwf_complex* half = nullptr;
  fftwf_complex* full = nullptr;
  fftwf_plan forward = nullptr;
  fftwf_plan inverse = nullptr;

  ~Impl() {
    const std::lock_guard<std::mutex> lock(planner_mutex());
    if (forward) fftwf_destroy_plan(forward);
    if (inverse) fftwf_destroy_plan(inverse);
    fftwf_free(real);
    fftwf_free(half);
    fftwf_free(full);
  }
};

FftwPlan::FftwPlan(int width, int rows) : impl_(std::make_unique<Impl>()) {
  require(width >= 2 && rows >= 1, [&] {
    return "symstereo/cpu: FFTW plan needs width >= 2 and rows >= 1, got " + std::to_string(width) + " x " +
           std::to_string(rows);
  });
  Impl& p = *impl_;
  p.width = width;
  p.rows = rows;
  const std::size_t w = std::size_t(width), r = std::size_t(rows), bins = w / 2 + 1;
  p.real = fftwf_alloc_real(w * r);
  p.half = fftwf_alloc_complex(bins * r);
  p.full = fftwf_alloc_complex(w * r);
  require(
      p.real && p.half && p.full,
      [&] {
        return "symstereo/cpu: out of host memory for FFTW buffers of " + std::to_string(width) + " x " +
               std::to_string(rows);
      },
      ErrorKind::out_of_memory);
  const std::lock_guard<std::mutex> lock(planner_mutex());
  // FFTW_ESTIMATE: no timing runs, so a plan is made in microseconds and is the same every
  // time (FFTW_MEASURE could pick different algorithms run to run and change the last bits).
  const int n = width;
  p.forward = fftwf_plan_many_dft_r2c(1, &n, rows, p.real, nullptr, 1, width, p.half, nullptr, 1, int(bins),
                                      FFTW_ESTIMATE);
  p.inverse = fftwf_plan_many_dft(1, &n, rows, p.full, nullptr, 1, width, p.full, nullptr, 1, width, FFTW_BACKWARD,
                                  FFTW_ESTIMATE);
  require(p.forward && p.inverse, [&] {
    return "symstereo/cpu: FFTW could not plan rows of " + std::to_string(width) + " x " + std::to_string(rows);
  });
}

FftwPlan::~FftwPlan() = default;
FftwPlan::FftwPlan(FftwPlan&&) noexcept = default;
FftwPlan& FftwPlan::operator=(FftwPlan&&) noexcept = default;
int FftwPlan::width() const { return impl_->width; }
int FftwPlan::rows() const { return impl_->rows; }
float* FftwPlan::real() { return impl_->real; }
Complex* FftwPlan::half_spectrum() { return reinterpret_cast<Complex*>(impl_->half); }
Complex* FftwPlan::full() { return reinterpret_cast<Complex*>(impl_->full); }
void FftwPlan::forward() { fftwf_execute(impl_->forward); }
void FftwPlan::inverse() { fftwf_execute(impl_->inverse); }

FilterBank log_gabor_bank(int width, const SymStereoParams& params) {
  params.validate("symstereo/cpu");
  require(width >= 2,
          [&] { return "symstereo/cpu: log_gabor_bank needs a row of >= 2 pixels, got " + std::to_string(width); });
  FilterBank bank;
  bank.width = width;
  bank.wavelets = params.wavelets;
  bank.bins = width / 2 + 1;
  bank.data.assign(std::size_t(bank.wavelets) * std::size_t(bank.bins), 0.0f);
  const double log_sigma = std::log(double(params.sigma_on_f));
  const double two_sigma2 = 2.0 * log_sigma * log_sigma;
  double lambda = params.min_wavelength;
  for (int k = 0; k < bank.wavelets; ++k) {
    bank.wavelengths.push_back(lambda);
    const double f0 = 1.0 / lambda;
    for (int j = 1; j < bank.bins; ++j) {
      const double f = double(j) / double(width);
      const double l = std::log(f / f0);
      const double g = std::exp(-l * l / two_sigma2);
      // Analytic: twice the positive frequencies, the Nyquist bin (its own negative) once.
      const bool nyquist = width % 2 == 0 && j == width / 2;
      bank.data[std::size_t(k) * std::size_t(bank.bins) + std::size_t(j)] =
          float((nyquist ? 1.0 : 2.0) * g / double(width));
    }
    lambda *= double(params.ratio);
  }
  return bank;
}

ImageF grey_float(const ImageU8& image) {
  const ImageU8 grey = grey_image(image);
  ImageF out(grey.width, grey.height, 1);
  for (std::size_t i = 0; i < grey.data.size(); ++i) out.data[i] = float(grey.data[i]);
  return out;
}

ImageF flip_rows(const ImageF& image) {
  require(image.channels == 1, "symstereo: flip_rows needs one channel");
  ImageF out(image.width, image.height, 1);
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) out.at(x, y) = image.at(image.width - 1 - x, y);
  return out;
}

Responses flip_rows(const Responses& responses, int width) {
  require(width >= 1 && width <= responses.length, [&] {
    return "symstereo: flip_rows: width " + std::to_string(width) + " outside rows of " +
           std::to_string(responses.length);
  });
  Responses out = responses;
  for (int r = 0; r < responses.count; ++r)
    for (int x = 0; x < width; ++x) out.row(r)[x] = responses.row(r)[width - 1 - x];
  return out;
}

ImageF pad_rows(const ImageF& image, int padded_width) {
  require(image.channels == 1 && padded_width >= image.width && padded_width <= 2 * image.width, [&] {
    return "symstereo: pad_rows: cannot pad rows of " + std::to_string(image.width) + " to " +
           std::to_string(padded_width);
  });
  const int w = image.width, pad = padded_width - w;
  ImageF out(padded_width, image.height, 1);
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < padded_width; ++x) {
      int source = x;
      if (x >= w) {
        const int t = x - w;
        // First half: the end mirrored; second half: the start mirrored, ending at x = 0's neighbour.
        source = t < pad / 2 ? w - 1 - t : padded_width - 1 - x;
      }
      out.at(x, y) = image.at(source, y);
    }
  return out;
}

ComplexRows row_fft(const ImageF& image, FftwPlan& plan) {
  require(plan.width() == image.width && plan.rows() == image.height, [&] {
    return "symstereo/cpu: row_fft plan is for " + std::to_string(plan.width()) + " x " + std::to_string(plan.rows()) +
           ", image is " + std::to_string(image.width) + " x " + std::to_string(image.height);
  });
  std::copy(image.data.begin(), image.data.end(), plan.real());
  plan.forward();
  const int bins = image.width / 2 + 1;
  ComplexRows out(bins, image.height);
  std::copy(plan.half_spectrum(), plan.half_spectrum() + out.data.size(), out.data.begin());
  return out;
}

ComplexRows filter(const ComplexRows& spectrum, const FilterBank& bank) {
  require(spectrum.length == bank.bins, [&] {
    return "symstereo: filter: spectrum has " + std::to_string(spectrum.length) + " bins, the bank " +
           std::to_string(bank.bins);
  });
  const int width = bank.width, height = spectrum.count;
  ComplexRows out(width, bank.wavelets * height);  // zero-initialised: negative frequencies stay 0
  for (int k = 0; k < bank.wavelets; ++k)
    for (int y = 0; y < height; ++y)
      for (int j = 0; j < bank.bins; ++j) out.row(k * height + y)[j] = spectrum.row(y)[j] * bank.at(k, j);
  return out;
}

Responses inverse(const ComplexRows& filtered, FftwPlan& plan) {
  require(filtered.length == plan.width() && filtered.count % plan.rows() == 0, [&] {
    return "symstereo/cpu: inverse: " + std::to_string(filtered.count) + " rows of " + std::to_string(filtered.length) +
           " do not fit a plan of " + std::to_string(plan.rows()) + " rows of " + std::to_string(plan.width());
  });
  Responses out(filtered.length, filtered.count);
  const std::size_t chunk = std::size_t(plan.rows()) * std::size_t(plan.width());
  for (std::size_t start = 0; start < filtered.data.size(); start += chunk) {
    std::copy(filtered.data.begin() + std::ptrdiff_t(start), filtered.data.begin() + std::ptrdiff_t(start + chunk),
              plan.full());
    plan.inverse();
    std::copy(plan.full(), plan.full() + chunk, out.data.begin() + std::ptrdiff_t(start));
  }
  return out;
}

Dsi energy(const Responses& left, const Responses& right, int width, int height, DisparityRange range) {
  require(left.length >= width && right.length == left.length && left.count == right.count && left.count % height == 0,
          [&] {
            return "symstereo: energy: responses do not match a " + std::to_string(width) + " x " +
                   std::to_string(height) + " image";
          });
  const int wavelets = left.count / height;
  Dsi dsi(width, height, range);
  // Rows are independent and each writes its own slice of the DSI, so the result does not
  // depend on the thread count. A pool per call: a pool serves one calling thread at a time,
  // and two matchers may run in two threads at once (a shared static pool gave wrong maps).
  parallel_for(std::size_t(height), 0, [&](std::size_t yi) {
    const int y = int(yi);
    for (int k = 0; k < range.count; ++k) {
      const int d = range.min + k;
      for (int x = 0; x < width; ++x) {
        const int q = x - d;
        float& out = dsi.data[dsi.index(x, y, k)];
        if (q < 0 || q >= width) {
          out = SYMSTEREO_OUT_OF_IMAGE;
          continue;
        }
        double num_s = 0, den_s = 0, num_a = 0, den_a = 0;
        for (int w = 0; w < wavelets; ++w) {
          const Complex l = left.row(w * height + y)[x];
          const Complex r = right.row(w * height + y)[q];
          const double s_sym = double(l.real()) + double(r.real());   // eq. 3
          const double a_sym = double(l.imag()) + double(r.imag());
          const double s_anti = double(l.real()) - double(r.real());  // eq. 4
          const double a_anti = double(l.imag()) - double(r.imag());
          num_s += std::abs(s_sym) - std::abs(a_sym);  // eq. 5
          den_s += std::sqrt(s_sym * s_sym + a_sym * a_sym);
          num_a += std::abs(a_anti) - std::abs(s_anti);  // eq. 6
          den_a += std::sqrt(s_anti * s_anti + a_anti * a_anti);
        }
        const double e_s = num_s / (den_s + double(SYMSTEREO_EPSILON));
        const double e_a = num_a / (den_a + double(SYMSTEREO_EPSILON));
        out = float(e_a * e_s);  // eq. 7
      }
    }
  });
  return dsi;
}

ImageF wta(const Dsi& dsi) {
  ImageF out(dsi.width, dsi.height, 1);
  for (int y = 0; y < dsi.height; ++y)
    for (int x = 0; x < dsi.width; ++x) {
      int best = 0;
      for (int k = 1; k < dsi.range.count; ++k)
        if (dsi.at(x, y, k) > dsi.at(x, y, best)) best = k;
      out.at(x, y) = float(dsi.range.min + best);
    }
  return out;
}

Dsi symstereo_dsi(const ImageU8& left, const ImageU8& right, DisparityRange range, const SymStereoParams& params) {
  const int w = left.width, h = left.height, wp = symstereo_padded_length(w, params);
  FftwPlan plan(wp, h);
  const FilterBank bank = log_gabor_bank(wp, params);
  const Responses rl = inverse(filter(row_fft(pad_rows(grey_float(left), wp), plan), bank), plan);
  const Responses rr =
      flip_rows(inverse(filter(row_fft(pad_rows(flip_rows(grey_float(right)), wp), plan), bank), plan), w);
  return energy(rl, rr, w, h, range);
}

}  // namespace stereo::reference
