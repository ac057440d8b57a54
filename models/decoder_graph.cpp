#include "models/decoder_graph.hpp"

#include <algorithm>

#include "models/layer.hpp"
#include "ops/ops.hpp"
#include "support/error.hpp"

namespace tessera::model {

namespace {

// Every tensor the model resolved must be a leaf of the pass: a description
// whose tables name a tensor its block never reads is a bug in that
// architecture's file, not something to skip.
void check_all_weights_used(const Model& m, const Graph& g) {
    for (const gguf::TensorInfo* t : m.resolved_tensors())
        if (g.find(t->name) == nullptr)
            throw Error("architecture '" + std::string(m.architecture().name) + "': its block does not use tensor '" +
                        t->name + "', which its tables require");
}

}  // namespace

int DecoderPass::part_of(const Tensor& t) const {
    return int(std::upper_bound(block_first_ids.begin(), block_first_ids.end(), t.id) - block_first_ids.begin()) - 1;
}

void DecoderPass::fill_positions(int32_t first) {
    std::vector<int32_t> pos(size_t(positions->ne[0]));
    for (size_t i = 0; i < pos.size(); ++i) pos[i] = first + int32_t(i);
    set_positions(pos);
}

void DecoderPass::set_positions(std::span<const int32_t> given) {
    if (int64_t(given.size()) != positions->ne[0])
        throw Error("a pass of " + std::to_string(positions->ne[0]) + " tokens was given " +
                    std::to_string(given.size()) + " positions");
    std::copy(given.begin(), given.end(), static_cast<int32_t*>(positions->data));
    for (const RingSlots& ring : rings) {
        int32_t* slot = static_cast<int32_t*>(ring.slots->data);
        for (size_t i = 0; i < given.size(); ++i) slot[i] = given[i] < 0 ? -1 : int32_t(given[i] % ring.rows);
    }
}

std::unique_ptr<DecoderPass> build_decoder_pass(const Model& m, KvCache& cache, int64_t n_tokens, int64_t n_past,
                                                bool all_logits, ActivationPrecision precision, int64_t n_kv,
                                                PassSequences sequences) {
    if (sequences.count < 1 || sequences.first < 0 || sequences.first + sequences.count > cache.n_seq())
        throw Error("a pass over sequences " + std::to_string(sequences.first) + " + " +
                    std::to_string(sequences.count) + " of a cache of " + std::to_string(cache.n_seq()));
    if (n_tokens < 1 || n_tokens % sequences.count != 0)
        throw Error("a forward pass needs at least one token, and as many for each of its sequences");
    const int64_t per_seq = n_tokens / sequences.count;
    if (n_past + per_seq > cache.n_ctx())
        throw Error("context full: " + std::to_string(n_past) + " cached + " + std::to_string(per_seq) +
                    " new tokens exceed the context size " + std::to_string(cache.n_ctx()));
    if (n_kv == 0) n_kv = n_past + per_seq;
    if (n_kv < n_past + per_seq || n_kv > cache.n_ctx())
        throw Error("attention over " + std::to_string(n_kv) + " cache positions: needs " +
                    std::to_string(n_past + per_seq) + " to " + std::to_string(cache.n_ctx()));
    auto pass = std::make_unique<DecoderPass>();
    Graph& g = pass->graph;
    pass->tokens = g.input("tokens", GgmlType::I32, {n_tokens, 1, 1, 1});
    pass->positions = g.input("positions", GgmlType::I32, {n_tokens, 1, 1, 1});
    for (int l = 0; l < int(m.hparams().n_layer); ++l) {
        const int64_t rows = cache.rows(l);
        const bool known = std::ranges::any_of(pass->rings, [&](const RingSlots& r) { return r.rows == rows; });
        if (cache.is_ring(l) && !known)
            pass->rings.push_back(
                {rows, g.input("ring_slots_" + std::to_string(rows), GgmlType::I32, {n_tokens, 1, 1, 1})});
    }
    const PassContext context{.model = m,
                              .graph = g,
                              .cache = cache,
                              .positions = pass->positions,
                              .rings = pass->rings,
                              .sequences = sequences,
                              .n_tokens = n_tokens,
                              .n_kv = n_kv,
                              .precision = precision};
    const Architecture& arch = m.architecture();
    Layer head(context, -1);

    Tensor* x = g.name(get_rows(leaf(g, m.tensor("token_embd")), pass->tokens), "embd");
    if (arch.embed) x = g.name(arch.embed(head, x), "embd_scaled");
    for (int l = 0; l < int(m.hparams().n_layer); ++l) {
        pass->block_first_ids.push_back(int(g.tensors().size()));
        Layer layer(context, l);
        x = arch.block(layer, x);
    }
    pass->block_first_ids.push_back(int(g.tensors().size()));
    if (!all_logits && n_tokens > 1) x = slice_rows(x, n_tokens - 1, 1);
    Tensor* h = head.norm(x, "output_norm");
    Tensor* logits = head.project("output", h);
    if (arch.logits) logits = arch.logits(head, logits);
    pass->logits = g.name(logits, "logits");
    check_all_weights_used(m, g);
    return pass;
}

}  // namespace tessera::model
