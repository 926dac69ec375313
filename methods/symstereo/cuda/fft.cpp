// Steps 5 and 7 of Algorithm 1: cuFFT over all rows at once (the paper's "optimized CUFFT
// API"). The forward transform is R2C: the rows are real, so only bins 0..W/2 are computed,
// which are all the analytic filters use. The inverse is C2C over N x H rows in one batched
// call; its 1/W normalisation is folded into the bank.

#include "methods/symstereo/cuda/stages.h"

namespace stereo::cu::symstereo {

void row_fft(const CufftPlan& plan, const float* grey, cufftComplex* spectrum) {
  require(plan.kind() == CufftPlan::Kind::r2c, "symstereo/cuda: row_fft needs an R2C plan");
  plan.forward(grey, spectrum);
}

void inverse(const CufftPlan& plan, cufftComplex* responses) {
  require(plan.kind() == CufftPlan::Kind::c2c, "symstereo/cuda: inverse needs a C2C plan");
  plan.execute(responses, responses, true);
}

}  // namespace stereo::cu::symstereo
