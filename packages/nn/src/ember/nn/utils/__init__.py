"""``ember.nn.utils``: gradient clipping and parameter/vector helpers."""

from __future__ import annotations

# nnutils: parametrizations, hook-based weight/spectral norm, functional_call
from ember.nn.utils import parametrizations, parametrize, rnn, stateless
from ember.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from ember.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from ember.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from ember.nn.utils.weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm", "parameters_to_vector",
           "vector_to_parameters",
           "parametrize", "parametrizations", "stateless", "remove_spectral_norm", "spectral_norm",
           "remove_weight_norm", "weight_norm", "rnn"]
