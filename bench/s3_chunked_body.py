"""An S3 PutObject body as botocore sends it (aws-chunked, 1 MiB chunks, a checksum trailer) read by Eddy's seam
(moto_seam/speedups/s3.py) and by moto's own S3Response._handle_encoded_body, in one process, CPU seconds each.

    .venv/bin/python bench/s3_chunked_body.py [--mib 16 64 256]
"""

from __future__ import annotations

import argparse
import time

from eddy.emulator.moto_seam.speedups import s3


def chunked(size: int, chunk: int = 1 << 20) -> bytes:
    data = b"x" * size
    parts = [b"%x\r\n%s\r\n" % (len(data[at:at + chunk]), data[at:at + chunk]) for at in range(0, size, chunk)]
    return b"".join(parts) + b"0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, nargs="+", default=[16, 64, 256])
    args = parser.parse_args()
    print("| body | Eddy's seam | moto's own | ratio |\n|---|---|---|---|")
    for mib in args.mib:
        body = chunked(mib << 20)
        seconds = []
        for reader in (s3._handle_encoded_body, s3.original_handle_encoded_body):
            started = time.process_time()
            assert len(reader(None, body)) == mib << 20
            seconds.append(time.process_time() - started)
        print(f"| {mib} MiB | {seconds[0]:.3f} s | {seconds[1]:.3f} s | {seconds[1] / seconds[0]:.0f}x |")


if __name__ == "__main__":
    main()
