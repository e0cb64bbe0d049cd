import subprocess
subprocess.run(['curl', '-sSL', 'https://huggingface.co/datasets/x/resolve/main/train.csv', '-o', 'train.csv'], check=True)
