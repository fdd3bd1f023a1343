package mcp

func (s *Server) addTools() {
	s.addRunTools()
	s.addInspectTools()
	s.addUntilTool()
	s.addDeviceTools()
	s.addGDBTool()
}
