"""Questions per second of ``score_models`` on CPU, by batch size, against a naive loop.

    .venv/bin/python bench/bench_score.py            # 256 questions, batch sizes 1 4 8 16 32
    .venv/bin/python bench/bench_score.py --quick    # 64 questions

The model is a tiny random-weight Llama (2 layers, hidden 32, byte-level BPE vocabulary
of 400 tokens) built on the fly, with synthetic MMLU-style questions of 20-500 prompt
tokens. With so small a model the time goes to per-call overhead and attention over the
prompt, so the figures show what batching by length saves, not what a real model does.

* naive: the model loaded once; per question: tokenize, full forward pass (logits for
  every position and the whole vocabulary), softmax over the letter logits.
* ranktrust: ``score_models([model], questions, batch_size=B)`` (model loading included,
  about 0.05 s), prompts sorted by length, left-padded, logits at the last position only.

The script also checks that both give the same letter probabilities (max |diff|).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

WORDS = ("what which how many the of a is in cell city year number river planet atom energy law force "
         "market price king war rome earth water light sound heat gene protein acid sum product").split()


def build(d: Path, n: int, seed: int = 0) -> tuple[Path, Path, list[dict]]:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    from ranktrust.score import MMLU_TEMPLATE

    r = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        q = " ".join(r.choice(WORDS, size=int(r.integers(5, 120)))) + "?"
        ch = [" ".join(r.choice(WORDS, size=int(r.integers(1, 8)))) for _ in range(4)]
        rows.append({"id": f"q{i}", "subject": "physics", "question": q, "choices": ch,
                     "answer": "ABCD"[int(r.integers(0, 4))]})
    qfile = d / "questions.jsonl"
    qfile.write_text("".join(json.dumps(x) + "\n" for x in rows))
    texts = [MMLU_TEMPLATE.render(x["question"], x["choices"], x["subject"]) for x in rows]
    texts += [f"Answer: {x}\n" for x in "ABCD"] * 5000  # so that " A" is one token, as in real vocabularies
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(texts, trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<pad>", "<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    ft = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", bos_token="<s>", eos_token="</s>")
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=len(ft), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                      initializer_range=0.4, pad_token_id=ft.pad_token_id)
    mdir = d / "tiny-llama"
    LlamaForCausalLM(cfg).save_pretrained(mdir)
    ft.save_pretrained(mdir)
    return mdir, qfile, rows


def naive(mdir: Path, rows: list[dict]) -> tuple[float, np.ndarray]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from ranktrust.score import MMLU_TEMPLATE

    t0 = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(mdir, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(mdir, local_files_only=True).eval()
    letters = [tok(f"Answer: {x}", add_special_tokens=False)["input_ids"][-1] for x in "ABCD"]
    out = np.empty((len(rows), 4))
    for i, x in enumerate(rows):
        ids = tok(MMLU_TEMPLATE.render(x["question"], x["choices"], x["subject"]), return_tensors="pt")
        with torch.no_grad():
            logits = model(**ids).logits[0, -1]
        out[i] = torch.softmax(logits[letters].double(), dim=0).numpy()
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="64 questions instead of 256")
    ap.add_argument("--n", type=int, default=None, help="number of questions")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    ap.add_argument("--batch-sizes", default="1,4,8,16,32")
    args = ap.parse_args()
    n = args.n or (64 if args.quick else 256)
    sizes = [int(b) for b in args.batch_sizes.split(",")]

    import torch
    import transformers

    from ranktrust.score import score_models

    torch.set_num_threads(args.threads)
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    with tempfile.TemporaryDirectory() as tmp:
        mdir, qfile, rows = build(Path(tmp), n)
        tok = transformers.AutoTokenizer.from_pretrained(mdir, local_files_only=True)
        from ranktrust.score import MMLU_TEMPLATE

        toks = np.array([len(tok(MMLU_TEMPLATE.render(x["question"], x["choices"], x["subject"]))["input_ids"])
                         for x in rows])
        print(f"{n} questions, prompt tokens min {toks.min()} / median {int(np.median(toks))} / max {toks.max()}; "
              f"torch {torch.__version__}, {args.threads} thread(s), CPU")
        score_models([mdir], qfile, batch_size=8, progress=False)  # warm-up (imports, first call)
        t_naive, p_naive = naive(mdir, rows)
        qps_naive = n / t_naive
        print(f"\n{'method':<22}{'seconds':>10}{'questions/s':>14}{'vs naive':>10}{'max |dp|':>11}")
        print(f"{'naive (one by one)':<22}{t_naive:>10.2f}{qps_naive:>14.1f}{1.0:>9.2f}x{'':>11}")
        for b in sizes:
            t0 = time.perf_counter()
            res = score_models([mdir], qfile, batch_size=b, progress=False)
            t = time.perf_counter() - t0
            f = res.frame.set_index("item").loc[[x["id"] for x in rows]]
            dp = float(np.abs(f[["p_A", "p_B", "p_C", "p_D"]].to_numpy(float) - p_naive).max())
            assert res.letter_modes == {mdir.name: '" A"'}, res.letter_modes
            print(f"{'ranktrust batch ' + str(b):<22}{t:>10.2f}{n / t:>14.1f}{t_naive / t:>9.2f}x{dp:>11.1e}")
    print(f"\ncommand: {os.path.basename(sys.executable)} bench/bench_score.py {' '.join(sys.argv[1:])}".rstrip())


if __name__ == "__main__":
    main()
