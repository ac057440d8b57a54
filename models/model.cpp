#include "models/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "support/error.hpp"

namespace tessera::model {

namespace {

// 1e-40, inf, nan: as a reader wants to see them in a message.
std::string number(double x) {
    std::ostringstream os;
    os << x;
    return os.str();
}

}  // namespace

Model::Model(gguf::File file) : file_(std::move(file)) {
    const std::string arch = file_.get_string("general.architecture");
    arch_ = find_architecture(arch);
    if (arch_ == nullptr)
        throw Error(file_.name() + ": architecture '" + arch + "' is not supported (tessera knows: " +
                    std::string(known_architectures()) + ")");
    read_hparams();
    read_sliding_windows();
    resolve_tensors();
    check_vectors_finite();
}

uint64_t Model::copy_tensors_to_huge_pages() {
    return file_.copy_tensors_to_huge_pages([](const gguf::TensorInfo& t) { return t.ne.size() < 3 ? 0 : 1; });
}

std::string Model::key_of(std::string_view hparam) const {
    for (const HParam& h : arch_->hparams)
        if (h.name == hparam) return h.key_for(arch_->name);
    return std::string(hparam);
}

double Model::eval(std::string_view expr, std::string_view what) const {
    return eval_hparam_expr(expr, values_, "architecture '" + std::string(arch_->name) + "': " + std::string(what));
}

void Model::read_hparams() {
    for (const HParam& h : arch_->hparams) {
        const std::string key = h.key_for(arch_->name);
        double value;
        if (file_.find(key) == nullptr) {
            if (h.fallback) value = *h.fallback;
            else if (!h.fallback_expr.empty()) value = eval(h.fallback_expr, h.name);
            else throw Error(file_.name() + ": required key '" + key + "' (" + std::string(h.name) + ") is missing");
        } else if (h.source == Source::ArrayLength) {
            value = double(file_.get_array(key).items.size());
        } else if (h.source == Source::Float) {
            value = file_.get_float(key);
            if (!std::isfinite(float(value)))
                throw Error(file_.name() + ": " + key + " = " + number(value) + " is not a finite float");
        } else {
            value = double(file_.get_uint(key));
        }
        values_.emplace(std::string(h.name), value);
    }
    auto count = [&](std::string_view name) {
        const double v = values_.at(std::string(name));
        if (!(v >= 1 && v <= double(1 << 30)) || v != std::floor(v))
            throw Error(file_.name() + ": " + key_of(name) + " = " + number(v) + " is not a valid count");
        return int64_t(v);
    };
    hp_.n_embd = count("n_embd");
    hp_.n_layer = count("n_layer");
    // Every layer has tensors: a count beyond the file's tensors is a corrupt
    // key, refused before per-layer tables are allocated for it.
    if (size_t(hp_.n_layer) > file_.tensors().size())
        throw Error(file_.name() + ": " + key_of("n_layer") + " = " + std::to_string(hp_.n_layer) +
                    " layers, but the file holds only " + std::to_string(file_.tensors().size()) + " tensors");
    hp_.n_head = count("n_head");
    hp_.n_head_kv = count("n_head_kv");
    hp_.head_dim = count("head_dim");
    hp_.n_ff = count("n_ff");
    hp_.n_ctx_train = count("n_ctx_train");
    hp_.n_vocab = count("n_vocab");
    hp_.n_rot = count("n_rot");
    hp_.rms_eps = float(values_.at("rms_eps"));
    hp_.rope_base = float(values_.at("rope_base"));
    if (!(hp_.rope_base > 1))
        throw Error(file_.name() + ": " + key_of("rope_base") + " = " + number(hp_.rope_base) +
                    " must be greater than 1");
    if (hp_.n_head % hp_.n_head_kv != 0)
        throw Error(file_.name() + ": head_count " + std::to_string(hp_.n_head) + " is not a multiple of head_count_kv " +
                    std::to_string(hp_.n_head_kv));
    if (hp_.n_rot > hp_.head_dim || hp_.n_rot % 2 != 0)
        throw Error(file_.name() + ": rope.dimension_count " + std::to_string(hp_.n_rot) +
                    " must be even and at most the head size " + std::to_string(hp_.head_dim));
    if (!(hp_.rms_eps > 0 && hp_.rms_eps < 1))
        throw Error(file_.name() + ": layer_norm_rms_epsilon " + std::to_string(hp_.rms_eps) + " is out of range");

    if (values_.at("head_dim_v") != values_.at("head_dim"))
        throw Error(file_.name() + ": attention.value_length " + std::to_string(int64_t(values_.at("head_dim_v"))) +
                    " differs from key_length " + std::to_string(hp_.head_dim) +
                    "; tessera's attention needs them equal");
    read_rope_scaling();
}

void Model::read_sliding_windows() {
    if (arch_->sliding_window == nullptr) return;
    for (int l = 0; l < int(hp_.n_layer); ++l) {
        const int64_t w = arch_->sliding_window(*this, l);
        if (w < 0) throw Error(file_.name() + ": layer " + std::to_string(l) + " has a negative sliding window");
        windows_.push_back(w);
    }
}

// As llama.cpp reads them: the factor from rope.scaling.factor (or the older
// rope.scale_linear), the type "linear" when the file names none, and no
// scaling at all for type "none".
void Model::read_rope_scaling() {
    const std::string prefix = std::string(arch_->name) + ".rope.";
    const std::string type = file_.get_string(prefix + "scaling.type", "linear");
    double factor = 1.0;
    std::string factor_key = prefix + "scaling.factor";
    if (!file_.find(factor_key) && file_.find(prefix + "scale_linear")) factor_key = prefix + "scale_linear";
    if (file_.find(factor_key)) factor = file_.get_float(factor_key);
    if (factor == 0.0) factor = 1.0;  // llama.cpp's "not set"
    if (type == "none") {
        factor = 1.0;
    } else if (type != "linear") {
        throw Error(file_.name() + ": rope scaling type '" + type + "' (" + prefix +
                    "scaling.type) is not supported; tessera supports 'none' and 'linear'");
    }
    if (!(factor >= 1e-6 && factor <= 1e6))
        throw Error(file_.name() + ": " + factor_key + " = " + number(factor) +
                    " is out of range: a rope scaling factor must be in [1e-6, 1e6]");
    hp_.rope_freq_scale = float(1.0 / factor);
}

const gguf::TensorInfo* Model::resolve(const std::string& name, std::span<const std::string_view> shape,
                                       bool optional) const {
    const gguf::TensorInfo* t = file_.find_tensor(name);
    if (t == nullptr) {
        if (optional) return nullptr;
        throw Error(file_.name() + ": tensor '" + name + "' is missing");
    }
    std::vector<uint64_t> expected;
    for (std::string_view dim : shape)
        if (!dim.empty()) expected.push_back(uint64_t(eval(dim, name)));
    if (t->ne != expected) {
        std::string want = "[";
        for (size_t i = 0; i < expected.size(); ++i) want += (i ? ", " : "") + std::to_string(expected[i]);
        throw Error(file_.name() + ": tensor '" + name + "' has shape " + t->shape_string() + ", expected " + want +
                    "]");
    }
    return t;
}

void Model::resolve_into(const TensorSpec& spec, int layer, TensorTable& table) {
    if (!spec.when.empty() && eval(spec.when, spec.name) == 0) return;
    if (!spec.unless.empty() && eval(spec.unless, spec.name) != 0) return;
    const gguf::TensorInfo* t = resolve(spec.name_in(layer), spec.shape, spec.optional);
    table.emplace(std::string(spec.role), t);
    if (t) resolved_.push_back(t);
    if (spec.bias == Bias::None) return;
    if (!spec.name.ends_with(".weight") || spec.shape[1].empty())
        throw Error("architecture '" + std::string(arch_->name) + "': '" + std::string(spec.name) +
                    "' has a bias, so it must be a 2-D tensor named '*.weight'");
    const std::string_view out_size[] = {spec.shape[1]};
    const gguf::TensorInfo* bias = resolve(spec.bias_name_in(layer), out_size, spec.bias == Bias::Optional);
    table.emplace(std::string(spec.role) + ".bias", bias);
    if (bias) resolved_.push_back(bias);
}

void Model::resolve_tensors() {
    for (const TensorSpec& spec : arch_->globals) resolve_into(spec, -1, globals_);
    for (const TensorSpec& spec : arch_->globals)
        if (globals_.contains(spec.role) && globals_.at(std::string(spec.role)) == nullptr && !spec.tied_to.empty())
            globals_[std::string(spec.role)] = globals_.at(std::string(spec.tied_to));
    layers_.resize(size_t(hp_.n_layer));
    for (int l = 0; l < int(hp_.n_layer); ++l)
        for (const TensorSpec& spec : arch_->layer) resolve_into(spec, l, layers_[size_t(l)]);
    check_all_tensors_resolved();
}

// Norm weights, biases and rope divisors are small: a NaN or an infinity in
// one (a corrupt file) is found here rather than as text that makes no sense.
void Model::check_vectors_finite() const {
    for (const gguf::TensorInfo* t : resolved_) {
        if (t->type.id != GgmlType::F32 || t->ne.size() != 1) continue;
        for (size_t i = 0; i < t->ne[0]; ++i) {
            float v;
            std::memcpy(&v, t->data.data() + i * sizeof(float), sizeof v);
            if (!std::isfinite(v))
                throw Error(file_.name() + ": tensor '" + t->name + "' holds " + number(v) + " at index " +
                            std::to_string(i) + "; its values must be finite");
        }
    }
}

void Model::check_all_tensors_resolved() {
    std::set<std::string_view> used;
    for (const gguf::TensorInfo* t : resolved_) used.insert(t->name);
    std::vector<std::string_view> unused;
    for (const gguf::TensorInfo& t : file_.tensors())
        if (!used.contains(t.name)) unused.push_back(t.name);
    if (unused.empty()) return;
    constexpr size_t kNamed = 5;
    std::string names;
    for (size_t i = 0; i < std::min(unused.size(), kNamed); ++i) names += (i ? ", '" : "'") + std::string(unused[i]) + "'";
    if (unused.size() > kNamed) names += " and " + std::to_string(unused.size() - kNamed) + " more";
    throw Error(file_.name() + ": " + std::to_string(unused.size()) + " tensor" + (unused.size() > 1 ? "s" : "") +
                " that architecture '" + std::string(arch_->name) + "' does not use: " + names);
}

double Model::hparam(std::string_view name) const {
    auto it = values_.find(name);
    if (it == values_.end()) throw Error("no hyperparameter named '" + std::string(name) + "'");
    return it->second;
}

const gguf::TensorInfo* Model::find(std::string_view role, int layer) const {
    const auto& table = layer < 0 ? globals_ : layers_.at(size_t(layer));
    auto it = table.find(role);
    return it == table.end() ? nullptr : it->second;
}

const gguf::TensorInfo& Model::tensor(std::string_view role, int layer) const {
    if (const gguf::TensorInfo* t = find(role, layer)) return *t;
    throw Error(file_.name() + ": no tensor for role '" + std::string(role) + "'" +
                (layer >= 0 ? " in layer " + std::to_string(layer) : ""));
}

const gguf::TensorInfo* Model::bias(std::string_view role, int layer) const {
    const auto& table = layer < 0 ? globals_ : layers_.at(size_t(layer));
    auto it = table.find(std::string(role) + ".bias");
    return it == table.end() ? nullptr : it->second;
}

bool Model::output_is_tied() const { return globals_.at("output") == globals_.at("token_embd"); }

}  // namespace tessera::model
