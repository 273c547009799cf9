// The course's compiled kernel (notebook 16): RMS normalisation over the last dimension, forward and backward,
// for CPU tensors of float32 or float64. Built by autograder/kernels/__init__.py with
// torch.utils.cpp_extension.load_inline, before any grading, never inside a learner's process.
//
// course_kernels::rms_norm(Tensor x, float eps) -> (Tensor out, Tensor rstd)
//   rstd = 1 / sqrt(mean(x * x over the last dim) + eps), shape x.shape[:-1], dtype of x
//   out  = x * rstd[..., None], shape x.shape, dtype of x
//   Both outputs are new contiguous tensors, whatever the layout (strides) of x.
// course_kernels::rms_norm_backward(Tensor grad_out, Tensor x, Tensor rstd) -> Tensor grad_x
//   grad_x = rstd * (grad_out - x * rstd^2 * mean(grad_out * x over the last dim)), a new contiguous tensor
// Neither op has an autograd formula or a fake kernel: those are registered from Python.
#include <ATen/ATen.h>
#include <torch/library.h>
#include <cmath>
#include <tuple>

namespace {

void check_input(const at::Tensor& x, const char* name) {
  TORCH_CHECK(x.device().is_cpu(), "course_kernels: ", name, " must be a CPU tensor");
  TORCH_CHECK(x.scalar_type() == at::kFloat || x.scalar_type() == at::kDouble,
              "course_kernels: ", name, " must be float32 or float64, got ", x.scalar_type());
}

std::tuple<at::Tensor, at::Tensor> rms_norm(const at::Tensor& x, double eps) {
  check_input(x, "x");
  TORCH_CHECK(x.dim() >= 1, "course_kernels::rms_norm: x must have at least one dimension");
  at::Tensor xc = x.contiguous();
  const int64_t n = xc.size(-1);
  const int64_t rows = n == 0 ? 0 : xc.numel() / n;
  at::Tensor out = at::empty(xc.sizes(), xc.options());
  at::Tensor rstd = at::empty(xc.sizes().slice(0, xc.dim() - 1), xc.options());
  AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "course_kernels::rms_norm", [&] {
    const scalar_t* in = xc.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    scalar_t* r = rstd.data_ptr<scalar_t>();
    for (int64_t row = 0; row < rows; ++row) {
      const scalar_t* xr = in + row * n;
      double squares = 0;
      for (int64_t i = 0; i < n; ++i) squares += double(xr[i]) * double(xr[i]);
      const double inv = 1.0 / std::sqrt(squares / double(n) + eps);
      r[row] = scalar_t(inv);
      for (int64_t i = 0; i < n; ++i) o[row * n + i] = scalar_t(double(xr[i]) * inv);
    }
  });
  return {out, rstd};
}

at::Tensor rms_norm_backward(const at::Tensor& grad_out, const at::Tensor& x, const at::Tensor& rstd) {
  check_input(grad_out, "grad_out");
  check_input(x, "x");
  check_input(rstd, "rstd");
  TORCH_CHECK(grad_out.sizes() == x.sizes(), "course_kernels::rms_norm_backward: grad_out has shape ",
              grad_out.sizes(), ", x has shape ", x.sizes());
  TORCH_CHECK(x.dim() >= 1 && rstd.sizes() == x.sizes().slice(0, x.dim() - 1),
              "course_kernels::rms_norm_backward: rstd must have shape x.shape[:-1], got ", rstd.sizes());
  TORCH_CHECK(grad_out.scalar_type() == x.scalar_type() && rstd.scalar_type() == x.scalar_type(),
              "course_kernels::rms_norm_backward: grad_out, x and rstd must have one dtype");
  at::Tensor g = grad_out.contiguous(), xc = x.contiguous(), rc = rstd.contiguous();
  const int64_t n = xc.size(-1);
  const int64_t rows = n == 0 ? 0 : xc.numel() / n;
  at::Tensor grad_x = at::empty(xc.sizes(), xc.options());
  AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "course_kernels::rms_norm_backward", [&] {
    const scalar_t* gp = g.data_ptr<scalar_t>();
    const scalar_t* xp = xc.data_ptr<scalar_t>();
    const scalar_t* rp = rc.data_ptr<scalar_t>();
    scalar_t* out = grad_x.data_ptr<scalar_t>();
    for (int64_t row = 0; row < rows; ++row) {
      const double r = double(rp[row]);
      double dot = 0;
      for (int64_t i = 0; i < n; ++i) dot += double(gp[row * n + i]) * double(xp[row * n + i]);
      const double scale = r * r * dot / double(n);
      for (int64_t i = 0; i < n; ++i)
        out[row * n + i] = scalar_t(r * (double(gp[row * n + i]) - double(xp[row * n + i]) * scale));
    }
  });
  return grad_x;
}

}  // namespace

TORCH_LIBRARY(course_kernels, m) {
  m.def("rms_norm(Tensor x, float eps) -> (Tensor, Tensor)");
  m.def("rms_norm_backward(Tensor grad_out, Tensor x, Tensor rstd) -> Tensor");
}

TORCH_LIBRARY_IMPL(course_kernels, CPU, m) {
  m.impl("rms_norm", &rms_norm);
  m.impl("rms_norm_backward", &rms_norm_backward);
}
