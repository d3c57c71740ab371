"""Library-style code: a BERT-like masked-LM (word/position/token-type embeddings with a non-persistent
position_ids buffer, nn.TransformerEncoder with batch_first, GELU, dropout and key-padding masks, a tied
MLM head), fed by a DataCollatorForLanguageModeling-style masking (bernoulli_/randint on the global RNG);
under torch and ember alike."""

from __future__ import annotations

from typing import Any

import ember
import pytest
from _user_scripts_util import assert_runs_match

VOCAB, HIDDEN, MASK_ID, PAD_ID, CLS_ID = 50, 32, 3, 0, 1


def _bert_script(lib: Any, norm_first: bool, mask_style: str) -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional

    class Embeddings(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.word_embeddings = nn.Embedding(VOCAB, HIDDEN, padding_idx=PAD_ID)
            self.position_embeddings = nn.Embedding(32, HIDDEN)
            self.token_type_embeddings = nn.Embedding(2, HIDDEN)
            self.LayerNorm = nn.LayerNorm(HIDDEN, eps=1e-12)
            self.dropout = nn.Dropout(0.1)
            self.register_buffer("position_ids", torch.arange(32).expand((1, -1)), persistent=False)
            self.register_buffer("token_type_ids", torch.zeros(self.position_ids.size(), dtype=torch.long),
                                 persistent=False)

        def forward(self, input_ids: Any, token_type_ids: Any = None) -> Any:
            seq_length = input_ids.size(1)
            position_ids = self.position_ids[:, :seq_length]
            if token_type_ids is None:
                token_type_ids = self.token_type_ids[:, :seq_length].expand(input_ids.shape[0], seq_length)
            emb = (self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
                   + self.position_embeddings(position_ids))
            return self.dropout(self.LayerNorm(emb))

    class BertForMLM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embeddings = Embeddings()
            layer = nn.TransformerEncoderLayer(HIDDEN, 4, 64, dropout=0.1, activation="gelu", batch_first=True,
                                               norm_first=norm_first, layer_norm_eps=1e-12)
            self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.transform = nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.GELU(), nn.LayerNorm(HIDDEN, eps=1e-12))
            self.decoder = nn.Linear(HIDDEN, VOCAB, bias=False)
            self.bias = nn.Parameter(torch.zeros(VOCAB))
            self.decoder.weight = self.embeddings.word_embeddings.weight
            self.pooler = nn.Linear(HIDDEN, HIDDEN)
            self.apply(self._init_weights)

        def _init_weights(self, module: Any) -> None:
            if isinstance(module, nn.Linear):
                module.weight.data.normal_(mean=0.0, std=0.02)
                if module.bias is not None:
                    module.bias.data.zero_()
            elif isinstance(module, nn.Embedding):
                module.weight.data.normal_(mean=0.0, std=0.02)
                if module.padding_idx is not None:
                    module.weight.data[module.padding_idx].zero_()
            elif isinstance(module, nn.LayerNorm):
                module.bias.data.zero_()
                module.weight.data.fill_(1.0)

        def forward(self, input_ids: Any, attention_mask: Any, labels: Any = None) -> tuple[Any, Any, Any]:
            h = self.embeddings(input_ids)
            if mask_style == "bool":
                pad = attention_mask == 0
            else:  # transformers' additive float mask, 0 keep / finfo.min drop
                pad = (1.0 - attention_mask.to(h.dtype)) * torch.finfo(h.dtype).min
            h = self.encoder(h, src_key_padding_mask=pad)
            pooled = torch.tanh(self.pooler(h[:, 0]))
            logits = self.decoder(self.transform(h)) + self.bias
            loss = None
            if labels is not None:
                loss = F.cross_entropy(logits.view(-1, VOCAB), labels.view(-1))  # -100 ignored by default
            return loss, logits, pooled

    def mask_tokens(inputs: Any, special: Any) -> tuple[Any, Any]:
        labels = inputs.clone()
        probability_matrix = torch.full(labels.shape, 0.15)
        probability_matrix.masked_fill_(special, value=0.0)
        masked_indices = torch.bernoulli(probability_matrix).bool()
        labels[~masked_indices] = -100
        indices_replaced = torch.bernoulli(torch.full(labels.shape, 0.8)).bool() & masked_indices
        inputs[indices_replaced] = MASK_ID
        indices_random = torch.bernoulli(torch.full(labels.shape, 0.5)).bool() & masked_indices & ~indices_replaced
        random_words = torch.randint(VOCAB, labels.shape, dtype=torch.long)
        inputs[indices_random] = random_words[indices_random]
        return inputs, labels

    torch.manual_seed(42)
    model = BertForMLM()
    assert "embeddings.position_ids" not in model.state_dict()
    no_decay = ["bias", "LayerNorm.weight", "norm1.weight", "norm2.weight"]
    groups = [{"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
               "weight_decay": 0.01},
              {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
               "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=1e-3, eps=1e-6)
    total = 6
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / 2, max(0.0, (total - s) / (total - 2))))
    lengths = [10, 7, 12, 5]
    ids = torch.full((4, 12), PAD_ID, dtype=torch.long)
    for i, n in enumerate(lengths):
        ids[i, 0] = CLS_ID
        ids[i, 1:n] = torch.randint(5, VOCAB, (n - 1,))
    attention_mask = (ids != PAD_ID).long()
    special = (ids == PAD_ID) | (ids == CLS_ID)
    record: list[float] = []
    model.train()
    for _ in range(total):
        inputs, labels = mask_tokens(ids.clone(), special)
        loss, logits, pooled = model(inputs, attention_mask, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        record += [loss.item(), pooled.sum().item(), int((labels != -100).sum())]
    model.eval()
    with torch.no_grad():
        _, logits, _ = model(ids, attention_mask)
        preds = logits.argmax(-1).masked_fill(attention_mask == 0, -1)
    return {"losses": record + preds.flatten().tolist(), "params": dict(model.named_parameters())}


@pytest.mark.parametrize("norm_first,mask_style", [(False, "bool"), (True, "float")])
def test_bert_mlm_matches_torch(norm_first: bool, mask_style: str) -> None:
    torch = pytest.importorskip("torch")
    assert_runs_match(_bert_script(ember, norm_first, mask_style), _bert_script(torch, norm_first, mask_style))
