"""The network in PyTorch and its updates (needs the extra ``train``).

The network is :mod:`slagwerk.search.network`'s, in PyTorch's terms: linear layers
with ReLU between them, one output per action index. The Deep Monte-Carlo update
regresses the output of each sample's chosen index on its return; the taught
update regresses every output the search gave a target, weighted (both: mean
squared error, Adam). A network with seat values also regresses them on every seat's return.
Training runs on one thread, so that the same samples give the same weights on any
machine (PyTorch's CPU kernels may sum in another order with more threads).
"""

from __future__ import annotations

import io

import numpy as np

from ...errors import SlagwerkError

try:
    import torch
except ImportError:  # play needs no PyTorch; training says how to get it
    torch = None


class TrainingUnavailable(SlagwerkError):
    """PyTorch is not installed."""


def require_torch():
    if torch is None:
        raise TrainingUnavailable("training needs PyTorch, which is not installed: pip install "
                                  "'slagwerk[train]' (the CPU build is enough)")
    torch.set_num_threads(1)
    return torch


class Learner:
    """The network (from numpy ``weights``: W as (in, out), b) and its optimiser."""

    def __init__(self, weights: tuple, learning_rate: float, seed: int, seat_values: int = 0):
        torch = require_torch()
        self.seat_values = seat_values  # the last outputs, regressed on every seat's return
        self.actions = weights[-1].shape[0] - seat_values
        torch.manual_seed(seed)
        layers = []
        for w in weights[::2]:
            layers += [torch.nn.Linear(w.shape[0], w.shape[1]), torch.nn.ReLU()]
        self.net = torch.nn.Sequential(*layers[:-1])
        with torch.no_grad():
            for layer, w, b in zip(self.linears(), weights[::2], weights[1::2]):
                layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
                layer.bias.copy_(torch.from_numpy(b))
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=learning_rate)

    def linears(self):
        return [m for m in self.net if isinstance(m, torch.nn.Linear)]

    def weights(self) -> tuple:
        """The network as numpy weights for the numba forward pass (float32, W as (in, out))."""
        out = []
        for layer in self.linears():
            out += [np.ascontiguousarray(layer.weight.detach().numpy().T, dtype=np.float32),
                    np.ascontiguousarray(layer.bias.detach().numpy(), dtype=np.float32)]
        return tuple(out)

    def update(self, samples, batch_size: int, epochs: int, seed: int) -> float:
        """Train on :class:`~.selfplay.Samples` for ``epochs`` passes in shuffled batches; the mean
        loss of the last pass."""
        xs, idx, ys = (torch.from_numpy(a) for a in (samples.x, samples.index, samples.target))
        returns = torch.from_numpy(samples.returns)

        def loss_of(batch):
            out = self.net(xs[batch])
            predicted = out.gather(1, idx[batch].unsqueeze(1)).squeeze(1)
            return torch.nn.functional.mse_loss(predicted, ys[batch]) + self._value_loss(out, returns[batch])

        return self._train(loss_of, len(ys), batch_size, epochs, seed)

    def _value_loss(self, out, returns):
        """The seat values' mean squared error from every seat's return (0 without seat values)."""
        if not self.seat_values:
            return 0.0
        return torch.nn.functional.mse_loss(out[:, self.actions:], returns)

    def update_taught(self, samples, batch_size: int, epochs: int, seed: int, policy_weight: float,
                      temperature: float) -> float:
        """As :meth:`update`, on every output with a weight (the weighted mean squared error), plus
        ``policy_weight`` times the cross-entropy from the search's visit shares to the softmax of
        the values over the legal actions at ``temperature`` (the prior the guide takes from the
        network). ``samples``: a :class:`~.selfplay.TaughtSamples`. The mean loss of the last pass."""
        xs, ys, ws = (torch.from_numpy(a) for a in (samples.x, samples.target, samples.weight))
        shares, legal = torch.from_numpy(samples.share), torch.from_numpy(samples.legal)

        returns = torch.from_numpy(samples.returns)

        def loss_of(batch):
            out, w = self.net(xs[batch]), ws[batch]
            values = out[:, : self.actions]
            loss = (w * (values - ys[batch]) ** 2).sum() / w.sum().clamp(min=1e-9)
            loss = loss + self._value_loss(out, returns[batch])
            if policy_weight:
                logits = (values / temperature).masked_fill(~legal[batch], float("-inf"))
                log_prior = torch.log_softmax(logits, dim=1).masked_fill(~legal[batch], 0.0)
                loss = loss - policy_weight * (shares[batch] * log_prior).sum(dim=1).mean()
            return loss

        return self._train(loss_of, len(ys), batch_size, epochs, seed)

    def _train(self, loss_of, samples: int, batch_size: int, epochs: int, seed: int) -> float:
        """``epochs`` passes of Adam steps on ``loss_of(batch)`` over the samples in shuffled batches
        (the order seeded by ``seed``); the mean loss of the last pass."""
        order_rng = np.random.default_rng(seed)
        loss_sum, count = 0.0, 0
        for _ in range(epochs):
            loss_sum, count = 0.0, 0
            order = torch.from_numpy(order_rng.permutation(samples))
            for start in range(0, samples, batch_size):
                batch = order[start:start + batch_size]
                loss = loss_of(batch)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                loss_sum += loss.item() * len(batch)
                count += len(batch)
        return loss_sum / max(count, 1)

    def state_bytes(self) -> bytes:
        """The network and the optimiser, for a checkpoint."""
        buffer = io.BytesIO()
        torch.save({"net": self.net.state_dict(), "optimizer": self.optimizer.state_dict()}, buffer)
        return buffer.getvalue()

    def load_state(self, data: bytes) -> None:
        state = torch.load(io.BytesIO(data), weights_only=True)
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
