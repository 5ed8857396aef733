"""A baseline trainer on the dataset: a BPE tokenizer, a small decoder-only transformer, a resumable stream.

Modules, read top-down: ``options`` (typed, self-validating run options), ``prompt`` (what the model sees and
what it must write), ``stream`` (the streamed, shuffled, rank-split train split), ``tokenizer`` (BPE trained on
the train split), ``model`` (a random-init ``transformers`` model from a config), ``batches`` (tokens, labels
masked to the completion), ``checkpoint`` (everything a killed run needs to resume), ``loop`` (the training
loop), ``predict`` (greedy or sampled decoding into the evaluator's JSONL), ``heldout`` (loss per byte of ir
on whole held-out rows). Only this package imports torch, transformers and tokenizers (the ``train`` extra).
"""
