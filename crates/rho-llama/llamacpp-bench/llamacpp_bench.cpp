// llama.cpp's own prompt and generation speed, measured the way llama-bench measures it, on the
// llama.cpp that llama-cpp-sys-2 vendors. The crates.io package of llama-cpp-sys-2 ships no
// tools/llama-bench sources, so this is a small stand-in written against llama.h only:
//
//   ppN: a fresh KV cache, N random tokens (the first one BOS) decoded in n_batch chunks.
//   tgN: a fresh KV cache, N single-token decodes, each a random token.
//
// One warm-up run per test, then -r timed runs; one JSON line per test on stdout.
//
//   llamacpp-bench -m model.gguf [-p 512] [-n 128] [-t 2] [-r 3] [-b 2048] [-ub 512] [-c n_ctx] [-fa auto|on|off]

#include "llama.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct options {
    std::string model;
    int n_prompt = 512;
    int n_gen = 128;
    int threads = 2;
    int reps = 3;
    int n_batch = 2048;
    int n_ubatch = 512;
    int n_ctx = 0;  // 0: n_prompt + n_gen, as llama-bench
    llama_flash_attn_type flash_attn = LLAMA_FLASH_ATTN_TYPE_AUTO;
};

bool parse(int argc, char ** argv, options & o) {
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        if (i + 1 >= argc) {
            fprintf(stderr, "missing value after %s\n", arg.c_str());
            return false;
        }
        std::string value = argv[++i];
        if (arg == "-m") {
            o.model = value;
        } else if (arg == "-p") {
            o.n_prompt = std::atoi(value.c_str());
        } else if (arg == "-n") {
            o.n_gen = std::atoi(value.c_str());
        } else if (arg == "-t") {
            o.threads = std::atoi(value.c_str());
        } else if (arg == "-r") {
            o.reps = std::atoi(value.c_str());
        } else if (arg == "-b") {
            o.n_batch = std::atoi(value.c_str());
        } else if (arg == "-c") {
            o.n_ctx = std::atoi(value.c_str());
        } else if (arg == "-ub") {
            o.n_ubatch = std::atoi(value.c_str());
        } else if (arg == "-fa") {
            o.flash_attn = value == "on"    ? LLAMA_FLASH_ATTN_TYPE_ENABLED
                           : value == "off" ? LLAMA_FLASH_ATTN_TYPE_DISABLED
                                            : LLAMA_FLASH_ATTN_TYPE_AUTO;
        } else {
            fprintf(stderr, "unknown option %s\n", arg.c_str());
            return false;
        }
    }
    if (o.model.empty() || o.n_prompt < 0 || o.n_gen < 0 || o.threads < 1 || o.reps < 1 || o.n_batch < 1 ||
        o.n_ubatch < 1 || o.n_ctx < 0) {
        fprintf(stderr, "usage: llamacpp-bench -m model.gguf [-p 512] [-n 128] [-t 2] [-r 3] [-b 2048] [-ub 512] [-c n_ctx] [-fa auto|on|off]\n");
        return false;
    }
    return true;
}

bool decode_prompt(llama_context * ctx, const llama_vocab * vocab, int n_prompt, int n_batch, std::mt19937 & rng) {
    const int n_vocab = llama_vocab_n_tokens(vocab);
    std::uniform_int_distribution<llama_token> pick(0, n_vocab - 1);
    std::vector<llama_token> tokens(n_batch);
    for (int done = 0; done < n_prompt;) {
        const int n = std::min(n_batch, n_prompt - done);
        for (int i = 0; i < n; i++) {
            tokens[i] = pick(rng);
        }
        if (done == 0) {
            tokens[0] = llama_vocab_bos(vocab);
        }
        if (llama_decode(ctx, llama_batch_get_one(tokens.data(), n)) != 0) {
            return false;
        }
        done += n;
    }
    llama_synchronize(ctx);
    return true;
}

bool decode_generation(llama_context * ctx, const llama_vocab * vocab, int n_gen, std::mt19937 & rng) {
    const int n_vocab = llama_vocab_n_tokens(vocab);
    std::uniform_int_distribution<llama_token> pick(0, n_vocab - 1);
    llama_token token = llama_vocab_bos(vocab);
    for (int i = 0; i < n_gen; i++) {
        if (llama_decode(ctx, llama_batch_get_one(&token, 1)) != 0) {
            return false;
        }
        llama_synchronize(ctx);
        token = pick(rng);
    }
    return true;
}

void quiet(ggml_log_level, const char *, void *) {}

}  // namespace

int main(int argc, char ** argv) {
    options o;
    if (!parse(argc, argv, o)) {
        return 2;
    }
    llama_log_set(quiet, nullptr);
    llama_backend_init();
    llama_model * model = llama_model_load_from_file(o.model.c_str(), llama_model_default_params());
    if (model == nullptr) {
        fprintf(stderr, "cannot load %s\n", o.model.c_str());
        return 1;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);
    std::mt19937 rng(42);
    struct test {
        const char * kind;
        int n_prompt;
        int n_gen;
    };
    std::vector<test> tests;
    if (o.n_prompt > 0) {
        tests.push_back({ "pp", o.n_prompt, 0 });
    }
    if (o.n_gen > 0) {
        tests.push_back({ "tg", 0, o.n_gen });
    }
    for (const test & t : tests) {
        llama_context_params cparams = llama_context_default_params();
        cparams.n_ctx = o.n_ctx > 0 ? o.n_ctx : t.n_prompt + t.n_gen;
        cparams.n_batch = o.n_batch;
        cparams.n_ubatch = o.n_ubatch;
        cparams.n_threads = o.threads;
        cparams.n_threads_batch = o.threads;
        cparams.flash_attn_type = o.flash_attn;
        cparams.no_perf = true;
        llama_context * ctx = llama_init_from_model(model, cparams);
        if (ctx == nullptr) {
            fprintf(stderr, "cannot create a context\n");
            return 1;
        }
        llama_memory_t mem = llama_get_memory(ctx);
        // Warm-up, as llama-bench does: one batch of the prompt, one generated token.
        bool ok = t.n_prompt > 0 ? decode_prompt(ctx, vocab, std::min(t.n_prompt, o.n_batch), o.n_batch, rng)
                                 : decode_generation(ctx, vocab, 1, rng);
        std::vector<double> samples;
        for (int r = 0; ok && r < o.reps; r++) {
            llama_memory_clear(mem, false);
            const auto start = std::chrono::steady_clock::now();
            ok = t.n_prompt > 0 ? decode_prompt(ctx, vocab, t.n_prompt, o.n_batch, rng)
                                : decode_generation(ctx, vocab, t.n_gen, rng);
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            samples.push_back((t.n_prompt + t.n_gen) / s);
        }
        llama_free(ctx);
        if (!ok) {
            fprintf(stderr, "llama_decode failed\n");
            return 1;
        }
        double mean = 0;
        for (double x : samples) {
            mean += x;
        }
        mean /= samples.size();
        double var = 0;
        for (double x : samples) {
            var += (x - mean) * (x - mean);
        }
        const double stddev = samples.size() > 1 ? std::sqrt(var / (samples.size() - 1)) : 0.0;
        printf("{\"test\":\"%s%d\",\"n_prompt\":%d,\"n_gen\":%d,\"threads\":%d,\"n_batch\":%d,\"n_ubatch\":%d,"
               "\"avg_ts\":%.2f,\"stddev_ts\":%.2f,\"samples_ts\":[",
               t.kind, t.n_prompt + t.n_gen, t.n_prompt, t.n_gen, o.threads, o.n_batch, o.n_ubatch, mean, stddev);
        for (size_t i = 0; i < samples.size(); i++) {
            printf("%s%.2f", i ? "," : "", samples[i]);
        }
        printf("]}\n");
        fflush(stdout);
    }
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
