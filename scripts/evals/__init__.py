"""Evaluations: memory recall on LoCoMo (locomo.py) and fact distillation (distill.py)."""
