"""Writes digits.bin, the data of the volunteer example, from scikit-learn's copy of the
UCI handwritten digits (1797 images of 8 x 8 pixels, values 0-16): one row of 65 bytes
per image, its 64 pixels then its label. Run once (``python export_digits.py``); the
output is committed, so that the objective needs neither scikit-learn nor NumPy in the
browser."""

from pathlib import Path

from sklearn.datasets import load_digits

digits = load_digits()
rows = bytearray()
for image, label in zip(digits.data.astype("uint8"), digits.target.astype("uint8")):
    rows += bytes(image) + bytes([label])
Path(__file__).with_name("digits.bin").write_bytes(bytes(rows))
print(f"wrote {len(digits.target)} images, {len(rows)} bytes")
