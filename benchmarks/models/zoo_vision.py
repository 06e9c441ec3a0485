"""Tiny convolutional models: (module, example inputs) factories for the corpus.

Every factory builds its module in ``.eval()`` with the weights the seeded
default initialisation gives, and fills batch-norm running statistics with
random values so that inference actually uses them.
"""

from __future__ import annotations

import torch
from torch import nn


def randomize_bn(module: nn.Module) -> nn.Module:
    """Give every BatchNorm of `module` random running mean/var and affine weights; return `module`."""
    for bn in module.modules():
        if isinstance(bn, nn.modules.batchnorm._BatchNorm):
            with torch.no_grad():
                bn.running_mean.uniform_(-0.5, 0.5)
                bn.running_var.uniform_(0.5, 1.5)
                bn.weight.uniform_(0.5, 1.5)
                bn.bias.uniform_(-0.5, 0.5)
    return module


class CnnBn(nn.Module):
    """conv 3x3 -> BatchNorm2d -> relu -> max_pool 2x2."""

    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(torch.relu(self.bn(self.conv(x))))


class ResnetBlock(nn.Module):
    """ResNet basic block: conv-bn-relu-conv-bn, plus the input, relu."""

    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(h)) + x)


class MobilenetBlock(nn.Module):
    """Depthwise-separable block: depthwise 3x3 (groups=C), BN, ReLU6, pointwise 1x1, BN, ReLU6."""

    def __init__(self, channels: int = 8, out: int = 16) -> None:
        super().__init__()
        self.depthwise = nn.Conv2d(channels, channels, 3, padding=1, groups=channels, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.pointwise = nn.Conv2d(channels, out, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = nn.functional.relu6(self.bn1(self.depthwise(x)))
        return nn.functional.relu6(self.bn2(self.pointwise(h)))


class UnetUp(nn.Module):
    """U-Net decoder step: ConvTranspose2d x2 upsampling, concat with the skip, conv, relu; plus a bilinear path."""

    def __init__(self) -> None:
        super().__init__()
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.conv = nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, low: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.conv(torch.cat([self.up(low), skip], dim=1)))
        return h + nn.functional.interpolate(low[:, :4], scale_factor=2.0, mode="bilinear", align_corners=False)


class VitBlock(nn.Module):
    """Patch embedding (conv, stride = patch), class token, position embedding, one pre-norm encoder block."""

    def __init__(self, dim: int = 16, patch: int = 4, image: int = 16) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, dim, patch, stride=patch)
        tokens = (image // patch) ** 2 + 1
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, tokens, dim) * 0.02)
        self.block = nn.TransformerEncoderLayer(
            dim, 2, dim_feedforward=32, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
        )
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.patch(x).flatten(2).transpose(1, 2)
        h = torch.cat([self.cls.expand(x.shape[0], -1, -1), h], dim=1) + self.pos
        return self.norm(self.block(h))[:, 0]


def cnn_bn() -> tuple[nn.Module, tuple]:
    return randomize_bn(CnnBn()), (torch.randn(1, 3, 16, 16),)


def resnet_block() -> tuple[nn.Module, tuple]:
    return randomize_bn(ResnetBlock()), (torch.randn(1, 8, 8, 8),)


def mobilenet_block() -> tuple[nn.Module, tuple]:
    return randomize_bn(MobilenetBlock()), (torch.randn(1, 8, 8, 8),)


def unet_up() -> tuple[nn.Module, tuple]:
    return UnetUp(), (torch.randn(1, 8, 4, 4), torch.randn(1, 4, 8, 8))


def vit_block() -> tuple[nn.Module, tuple]:
    return VitBlock(), (torch.randn(1, 3, 16, 16),)


MODELS = {
    "cnn_bn": cnn_bn,
    "resnet_block": resnet_block,
    "mobilenet_block": mobilenet_block,
    "unet_up": unet_up,
    "vit_block": vit_block,
}
