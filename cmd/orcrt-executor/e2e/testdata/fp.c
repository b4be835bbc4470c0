#include <stdio.h>
#include <math.h>
#if defined(__aarch64__)
#include <arm_neon.h>
#else
#include <immintrin.h>
#endif
__attribute__((noinline)) static double poly(double x) { return 3.0 * x * x - 2.0 * x + 0.5; }
int main(void) {
  double s = sqrt(2.0), t = sin(1.0), p = pow(2.0, 10.0);
  float out[4];
#if defined(__aarch64__) /* the same lanes with NEON */
  static const float av[4] = {4.0f, 3.0f, 2.0f, 1.0f}, bv[4] = {40.0f, 30.0f, 20.0f, 10.0f};
  float32x4_t a = vld1q_f32(av), b = vld1q_f32(bv);
  vst1q_f32(out, vaddq_f32(vmulq_f32(a, b), a));
#else
  __m128 a = _mm_set_ps(1.0f, 2.0f, 3.0f, 4.0f), b = _mm_set_ps(10.0f, 20.0f, 30.0f, 40.0f);
  __m128 c = _mm_add_ps(_mm_mul_ps(a, b), a);
  _mm_storeu_ps(out, c);
#endif
  float f = 0; for (int i = 0; i < 1000; i++) f += 0.001f * i;
  printf("sqrt2=%.6f sin1=%.6f pow=%.0f poly=%.3f simd=%.1f,%.1f,%.1f,%.1f f=%.2f\n", s, t, p, poly(1.5),
         out[0], out[1], out[2], out[3], f);
  return (int)(p / 64.0);
}
