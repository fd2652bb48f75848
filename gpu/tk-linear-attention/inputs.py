"""Inputs and reference output for ThunderKittens' linear attention harness (B=1, H=8, N=1024,
D=128), in the text format its main() reads: slopes, Q, K, V, then the reference O, as floats
separated by spaces. Our own reference: O = ((Q K^T) * M) V per head, with the causal decay mask
M[i, j] = exp(-s (i - j)) for j <= i and 0 above the diagonal (s the head's slope), computed in
float32 from the bf16 inputs.
    python3 inputs.py OUT_FILE
"""
import sys

import torch

B, H, N, D = 1, 8, 1024, 128


def main() -> None:
    torch.manual_seed(0)
    q = (torch.randn((B, H, N, D), device="cuda") / D**0.5).to(torch.bfloat16)
    k = (torch.randn((B, H, N, D), device="cuda") / D**0.5).to(torch.bfloat16)
    v = torch.randn((B, H, N, D), device="cuda").to(torch.bfloat16)
    s = torch.rand((H,), device="cuda", dtype=torch.float32)
    i = torch.arange(N, device="cuda", dtype=torch.float32)
    dist = i[:, None] - i[None, :]
    mask = torch.where(dist >= 0, torch.exp(-s[:, None, None] * dist.clamp(min=0)), torch.zeros((), device="cuda"))
    o = ((q.float() @ k.float().transpose(2, 3)) * mask) @ v.float()
    with open(sys.argv[1], "w") as f:
        for t in (s, q, k, v, o):
            f.write(" ".join(repr(x) for x in t.float().flatten().cpu().tolist()))
            f.write(" ")


if __name__ == "__main__":
    main()
