import os, smtplib
from email.message import EmailMessage
msg = EmailMessage()
msg['Subject'] = 'Report'
msg.set_content('Done')
with smtplib.SMTP('smtp.example.com', 587) as s:
    s.starttls()
    s.login('bot', os.environ['SMTP_PASSWORD'])
    s.send_message(msg)
