// Context mode: build each file's render context the way BKE's controller does and
// render a version directory with it, so calico-render's --config path can be compared
// with it byte for byte.
//
// Usage: render context CLUSTER_JSON NODES_JSON VERSION_DIR OUT_DIR
//
// The BKECluster is first defaulted as BKE's mutating webhook defaults it
// (common/cluster/initialize/defaults.go and webhooks/capbke/bkecluster.go), unless
// the environment sets BKE_AS_WRITTEN=1 (calico-render's --no-admission-defaults).
//
// CLUSTER_JSON is a BKECluster object and NODES_JSON a list of BKENode objects, both
// converted from YAML to JSON by the test (Go's standard library has no YAML). Every
// *.yaml file below VERSION_DIR is rendered (a path containing "noexecute" is copied)
// and written to OUT_DIR under its relative path. The rules are implemented here independently
// of calico-render, from the controller's behaviour as bke-context.md describes it.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
)

func init() {
	if len(os.Args) >= 2 && os.Args[1] == "context" {
		if len(os.Args) != 6 {
			fmt.Fprintln(os.Stderr, "usage: render context CLUSTER_JSON NODES_JSON VERSION_DIR OUT_DIR")
			os.Exit(2)
		}
		if err := runContext(os.Args[2], os.Args[3], os.Args[4], os.Args[5]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

type object = map[string]interface{}

func readJSON(path string, into interface{}) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(into)
}

// get walks nested objects; a missing step gives nil.
func get(o interface{}, keys ...string) interface{} {
	for _, k := range keys {
		m, ok := o.(object)
		if !ok {
			return nil
		}
		o = m[k]
	}
	return o
}

// str prints a scalar as the API would hold it in a string field.
func str(v interface{}) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case json.Number:
		return string(x)
	}
	return fmt.Sprint(v)
}

type node struct {
	ip    string
	roles []string
}

func (n node) has(role string) bool {
	for _, r := range n.roles {
		if r == role {
			return true
		}
	}
	return false
}

func count(nodes []node, role string) int {
	c := 0
	for _, n := range nodes {
		if n.has(role) {
			c++
		}
	}
	return c
}

// registry joins domain/ip/port: 443 is dropped, a domain wins over an ip, and a
// domain plus an ip without a port give nothing.
func registry(domain, ip, port string) string {
	switch {
	case port != "" && (domain != "" || ip != ""):
		host := domain
		if host == "" {
			host = ip
		}
		if port == "443" {
			return host
		}
		return host + ":" + port
	case port == "" && domain != "" && ip == "":
		return domain
	case port == "" && domain == "" && ip != "":
		return ip
	}
	return ""
}

func tenthAddress(subnet string) (string, error) {
	if subnet == "10.96.0.0/16" {
		return "10.96.0.10", nil
	}
	_, ipnet, err := net.ParseCIDR(subnet)
	if err != nil {
		return "", err
	}
	n := new(big.Int).Add(new(big.Int).SetBytes(ipnet.IP.To16()), big.NewInt(10)).Bytes()
	n = append(make([]byte, net.IPv6len), n...)
	ip := net.IP(n[len(n)-net.IPv6len:])
	if !ipnet.Contains(ip) {
		return "", fmt.Errorf("subnet %s too small", subnet)
	}
	return ip.String(), nil
}

func commonParams(cluster object, nodes []node) (object, error) {
	p := object{
		"replicas": 1, "kubeConfigDir": "/etc/kubernetes", "ipModVersion": "ipv4",
		"apiServerSrcPort": 6443, "podSubnet": "10.250.0.0/16", "serviceSubnet": "10.96.0.0/16",
		"dnsIP": "10.96.0.10", "dnsDomain": "cluster.local", "ingressReplicas": 1,
		"etcdEndpoints": "", "version": "v1.0.0", "kubeletDataRoot": "/var/lib/kubelet",
		"dockerDataRoot": "/var/lib/docker", "k8sVersion": "v1.34.3-of.1",
		"masterReplicas": "1", "workerReplicas": "1", "namespace": "cluster-system",
		"clusterNetworkMode": "", "product": "boc",
	}
	cfg := get(cluster, "spec", "clusterConfig")
	if cfg == nil {
		return p, nil
	}
	c := get(cfg, "cluster")
	repo := func(which, field string) string { return str(get(c, which, field)) }
	p["imageRepo"] = repo("imageRepo", "domain") + ":" + repo("imageRepo", "port")
	p["httpRepo"] = "http://" + repo("httpRepo", "domain") + ":" + repo("httpRepo", "port")
	for _, which := range []string{"imageRepo", "httpRepo"} {
		for _, f := range []string{"Domain", "Port", "Ip", "Prefix"} {
			p[which+f] = repo(which, strings.ToLower(f))
		}
	}
	p["ntpServer"] = str(get(c, "ntpServer"))
	p["agentHealthPort"] = str(get(c, "agentHealthPort"))
	for _, k := range []string{"nfsServer", "nfsRootDir", "nfsVersion"} {
		p[k] = str(get(cfg, "customExtra", k))
	}
	p["namespace"] = str(get(cluster, "metadata", "namespace"))
	for _, k := range []string{"podSubnet", "serviceSubnet", "dnsDomain"} {
		if v := str(get(c, "networking", k)); v != "" {
			p[k] = v
		}
	}
	if h := str(get(cluster, "spec", "controlPlaneEndpoint", "host")); h != "" {
		p["apiServerSrcHost"] = h
	}
	// The endpoint's port is an int32 field of the BKECluster: the context keeps that
	// type (the default, 6443, is an untyped constant, so an int).
	if port, ok := get(cluster, "spec", "controlPlaneEndpoint", "port").(json.Number); ok {
		if i, err := port.Int64(); err == nil && i != 0 {
			p["apiServerSrcPort"] = int32(i)
		}
	}
	var endpoints, ips []string
	for _, n := range nodes {
		if n.has("etcd") {
			endpoints = append(endpoints, "https://"+n.ip+":2379")
			ips = append(ips, n.ip)
		}
	}
	p["etcdEndpoints"] = strings.Join(endpoints, ",")
	p["masterReplicas"] = fmt.Sprint(count(nodes, "master") + count(nodes, "master/node"))
	p["workerReplicas"] = fmt.Sprint(count(nodes, "node"))
	addons, _ := get(cfg, "addons").([]interface{})
	for _, a := range addons {
		switch strings.ToLower(str(get(a, "name"))) {
		case "beyondelb":
			p["ingressReplicas"] = len(strings.Split(str(get(a, "param", "lbNodes")), ","))
		case "calico":
			p["clusterNetworkMode"] = "calico"
		case "fabric":
			p["clusterNetworkMode"] = "fabric"
		}
	}
	dns, err := tenthAddress(p["serviceSubnet"].(string))
	if err != nil {
		return nil, err
	}
	p["dnsIP"] = dns
	p["etcdIps"] = strings.Join(ips, ",")
	if v := str(get(c, "kubernetesVersion")); v != "" {
		p["k8sVersion"] = v
	}
	for _, k := range []string{"etcdVersion", "containerdVersion"} {
		if v := str(get(c, k)); v != "" {
			p[k] = v
		}
	}
	return p, nil
}

func typhaCapable(files []string) bool {
	var all strings.Builder
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all.Write(b)
		all.WriteByte('\n')
	}
	m := all.String()
	has := func(a, b string) bool { return strings.Contains(m, a) && strings.Contains(m, b) }
	return strings.Contains(m, "allowTypha") && strings.Contains(m, "typhaReplicas") &&
		has("kind: Deployment", "name: calico-typha") && has("kind: Service", "name: calico-typha") &&
		has("kind: PodDisruptionBudget", "name: calico-typha") &&
		has("typha_service_name", "FELIX_TYPHAK8SSERVICENAME")
}

// section returns o[key] as an object, creating it when missing.
func section(o object, key string) object {
	if m, ok := o[key].(object); ok {
		return m
	}
	m := object{}
	o[key] = m
	return m
}

// admit applies the webhook's defaults that reach a render context.
func admit(cluster object, nodes []node, names []string) {
	spec := section(cluster, "spec")
	cfg := section(spec, "clusterConfig")
	c := section(cfg, "cluster")
	setIfEmpty := func(o object, key, value string) {
		if str(o[key]) == "" {
			o[key] = value
		}
	}
	setIfEmpty(c, "kubernetesVersion", "v1.34.3-of.1")
	setIfEmpty(c, "etcdVersion", "v3.6.7-of.1")
	setIfEmpty(c, "containerdVersion", "v2.1.1")
	http := section(c, "httpRepo")
	setIfEmpty(http, "domain", "http.bocloud.k8s")
	if str(http["domain"]) == "http.bocloud.k8s" {
		setIfEmpty(http, "port", "40080")
	}
	img := section(c, "imageRepo")
	setIfEmpty(img, "domain", "deploy.bocloud.k8s")
	if str(img["domain"]) == "deploy.bocloud.k8s" {
		setIfEmpty(img, "port", "40443")
		setIfEmpty(img, "prefix", "kubernetes")
	}
	nw := section(c, "networking")
	setIfEmpty(nw, "dnsDomain", "cluster.local")
	setIfEmpty(nw, "serviceSubnet", "10.96.0.0/16")
	setIfEmpty(nw, "podSubnet", "10.250.0.0/16")
	kubelet := section(c, "kubelet")
	vols, _ := kubelet["extraVolumes"].([]interface{})
	found := false
	for _, v := range vols {
		if str(get(v, "name")) == "kubelet-root-dir" {
			found = true
		}
	}
	if !found {
		kubelet["extraVolumes"] = append(vols, object{"name": "kubelet-root-dir", "hostPath": "/var/lib/kubelet"})
	}
	rt := section(c, "containerRuntime")
	setIfEmpty(rt, "cri", "containerd")
	param := section(rt, "param")
	if _, ok := param["data-root"]; !ok {
		switch str(rt["cri"]) {
		case "containerd":
			param["data-root"] = "/var/lib/containerd"
		case "docker":
			param["data-root"] = "/var/lib/docker"
		}
	}
	// Masters (role master, then master/node), in the API's order: by name.
	idx := make([]int, len(nodes))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return names[idx[a]] < names[idx[b]] })
	var masters []string
	for _, role := range []string{"master", "master/node"} {
		for _, i := range idx {
			if nodes[i].has(role) && (role == "master" || !nodes[i].has("master")) {
				masters = append(masters, nodes[i].ip)
			}
		}
	}
	ep := section(spec, "controlPlaneEndpoint")
	port, _ := ep["port"].(json.Number)
	portZero := port == "" || port == "0"
	if len(masters) > 0 && str(ep["host"]) == "" && portZero {
		ep["host"] = masters[0]
		ep["port"] = json.Number("6443")
	} else if str(ep["host"]) != "" && portZero {
		ep["port"] = json.Number("36443")
	}
}

func runContext(clusterFile, nodesFile, dir, outDir string) error {
	var cluster object
	if err := readJSON(clusterFile, &cluster); err != nil {
		return err
	}
	var rawNodes []interface{}
	if err := readJSON(nodesFile, &rawNodes); err != nil {
		return err
	}
	var nodes []node
	var names []string
	for _, rn := range rawNodes {
		n := node{ip: str(get(rn, "spec", "ip"))}
		roles, _ := get(rn, "spec", "role").([]interface{})
		for _, r := range roles {
			n.roles = append(n.roles, str(r))
		}
		nodes = append(nodes, n)
		names = append(names, str(get(rn, "metadata", "name")))
	}
	if os.Getenv("BKE_AS_WRITTEN") != "1" {
		admit(cluster, nodes, names)
	}
	// The Typha code finds calico ignoring case, but the manifests are read from
	// kubernetes/<name>/<version>: an addon named Calico names a directory that does
	// not exist, and the install fails there.
	var addon interface{}
	addons, _ := get(cluster, "spec", "clusterConfig", "addons").([]interface{})
	for _, a := range addons {
		if strings.EqualFold(str(get(a, "name")), "calico") {
			addon = a
		}
	}
	if addon == nil {
		return fmt.Errorf("no calico addon")
	}
	named := filepath.Join(filepath.Dir(filepath.Dir(dir)), str(get(addon, "name")), filepath.Base(dir))
	if _, err := os.Stat(named); os.IsNotExist(err) {
		return fmt.Errorf("addon dir %q not exist", named)
	}
	// The controller's walk: every path below the version directory ending in .yaml,
	// subdirectories included, sorted by path.
	var files, bases []string
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() && strings.HasSuffix(path, ".yaml") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	params := map[string]object{}
	for _, f := range files {
		b := strings.Split(filepath.Base(f), ".")[0]
		bases = append(bases, b)
		params[b] = object{}
	}
	// Addon params, keys sorted: a per-file key is applied after the key for every file.
	raw, _ := get(addon, "param").(object)
	var plain, dotted []string
	for k := range raw {
		if strings.Contains(k, ".") {
			dotted = append(dotted, k)
		} else {
			plain = append(plain, k)
		}
	}
	sort.Strings(plain)
	sort.Strings(dotted)
	for _, k := range plain {
		for _, b := range bases {
			params[b][k] = str(raw[k])
		}
	}
	for _, k := range dotted {
		parts := strings.Split(k, ".")
		if params[parts[0]] == nil {
			params[parts[0]] = object{}
		}
		params[parts[0]][parts[1]] = str(raw[k])
	}
	// A nodeSelector param becomes a map[string]string: a JSON object, or k=v pairs
	// separated by commas (a key without "=" maps to "").
	for _, p := range params {
		if raw, ok := p["nodeSelector"].(string); ok {
			selector, err := nodeSelector(raw)
			if err != nil {
				return err
			}
			p["nodeSelector"] = selector
		}
	}
	common, err := commonParams(cluster, nodes)
	if err != nil {
		return err
	}
	for _, p := range params {
		for k, v := range common {
			if _, ok := p[k]; !ok {
				p[k] = v
			}
		}
	}
	allow, replicas := "false", "0"
	if len(nodes) > 50 {
		if !typhaCapable(files) {
			return fmt.Errorf("not Typha-capable above 50 nodes")
		}
		r := (len(nodes) + 199) / 200
		if r < 3 {
			r = 3
		}
		if r > 20 {
			r = 20
		}
		if r >= len(nodes) {
			r = len(nodes) - 1
		}
		allow, replicas = "true", fmt.Sprint(r)
	}
	c := get(cluster, "spec", "clusterConfig", "cluster")
	repo := ""
	if prefix := str(get(c, "imageRepo", "prefix")); prefix != "" {
		repo = registry(str(get(c, "imageRepo", "domain")), str(get(c, "imageRepo", "ip")),
			str(get(c, "imageRepo", "port"))) + "/" + prefix + "/"
	}
	for i, f := range files {
		p := params[bases[i]]
		p["allowTypha"], p["typhaReplicas"], p["repo"] = allow, replicas, repo
		text, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		out := text
		if !strings.Contains(f, "noexecute") {
			tmpl, err := template.New("calico").Funcs(funcs).Parse(string(text))
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := tmpl.Execute(&buf, map[string]interface{}(p)); err != nil {
				return err
			}
			out = buf.Bytes()
		}
		rel, err := filepath.Rel(dir, f)
		if err != nil {
			return err
		}
		target := filepath.Join(outDir, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, out, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func nodeSelector(raw string) (map[string]string, error) {
	out := map[string]string{}
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(raw, "{") {
		err := json.Unmarshal([]byte(raw), &out)
		return out, err
	}
	for _, pair := range strings.Split(raw, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		key, value, _ := strings.Cut(pair, "=")
		if strings.TrimSpace(key) == "" {
			return nil, fmt.Errorf("invalid nodeSelector entry %q", pair)
		}
		out[strings.TrimSpace(key)] = strings.TrimSpace(value)
	}
	return out, nil
}
