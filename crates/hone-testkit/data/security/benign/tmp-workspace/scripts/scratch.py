import shutil, tempfile
d = tempfile.mkdtemp()
try:
    print(d)
finally:
    shutil.rmtree(d)
