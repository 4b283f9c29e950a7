"""The agents' files and what they hold: checkpoints, written atomically and refused when made
for other rules (`checkpoint`), the ONNX export (`onnx_export`, `baohuang export --onnx`), what
a checkpoint, playing copy, run directory or ONNX graph holds (`file_info`, `baohuang info`),
and what an agent spec resolves to, the file and its sha256, for reports (`provenance`). The
shipped agents themselves are `agents.pretrained`.
"""
