ns = {}
exec(open('pkg/version.py').read(), ns)
print(ns['__version__'])
