// tanh and the tanh-approximated GELU, in forms that stay finite for any
// input: GLSL's tanh may be evaluated as (e^2x - 1) / (e^2x + 1), which is
// inf / inf = NaN from |x| of about 44 on; logits and attention scores get
// there. Absolute error about that of exp (1e-7): enough for soft-capping
// (softcap.comp, the attention shaders) and for geglu, whose references
// (ops/softcap.cpp, ops/geglu.cpp) are in double.

float safe_tanh(float x) {
    const float t = exp(-2.0 * abs(x));  // in (0, 1]
    return sign(x) * (1.0 - t) / (1.0 + t);
}

// cap * tanh(s / cap): scores and logits soft-capped to (-cap, cap).
float soft_cap(float s, float cap) { return cap * safe_tanh(s / cap); }

// x/2 (1 + tanh(u)) with u = sqrt(2/pi) (x + 0.044715 x^3), written as
// x / (1 + e^(-2u)): the same value, and for very negative x e^(-2u) = inf
// gives 0 rather than 0 * inf.
float gelu_tanh(float x) {
    const float u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
    return x / (1.0 + exp(-2.0 * u));
}
