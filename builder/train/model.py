"""A small decoder-only transformer from a ``transformers`` config, initialised at random (nothing downloaded)."""

from __future__ import annotations

from builder.rng import stable_int
from builder.train.options import ModelOptions
from builder.train.prompt import EOS, PAD


def llama_config(opts: ModelOptions, tokenizer, max_length: int):
    from transformers import LlamaConfig

    return LlamaConfig(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=opts.hidden,
        intermediate_size=opts.mlp_width,
        num_hidden_layers=opts.layers,
        num_attention_heads=opts.heads,
        num_key_value_heads=opts.heads,
        max_position_embeddings=max_length,
        pad_token_id=tokenizer.token_to_id(PAD),
        eos_token_id=tokenizer.token_to_id(EOS),
        bos_token_id=None,
        tie_word_embeddings=True,  # at this size the embedding is most of the parameters
    )


def build(opts: ModelOptions, tokenizer, max_length: int, seed: int):
    """The model, its weights drawn from a generator seeded by the run seed (global torch state untouched)."""
    import torch
    from transformers import LlamaForCausalLM

    config = llama_config(opts, tokenizer, max_length)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(stable_int(seed, "train", "init", bits=63))
        return LlamaForCausalLM(config)


def load(folder):
    from transformers import LlamaForCausalLM

    return LlamaForCausalLM.from_pretrained(str(folder))


def for_inference(folder):
    """A checkpoint's model in eval mode, on the GPU when one is visible (full precision), for decoding and
    scoring alike."""
    import torch

    net = load(folder)
    net.eval()
    return net.to("cuda") if torch.cuda.is_available() else net


def parameters(model) -> int:
    return sum(p.numel() for p in model.parameters())
